/**
 * How a run's coins are cut into chunks (src/runs/fan-out.ts chunkCount, Transport.chunksPerWorker):
 * one chunk per worker where a task's affinity pins it to its worker (the pool, the calling
 * thread), two where any worker takes any task and on a scheduled job's lane; never more chunks
 * than a quarter of the coins. The answers do not depend on the cut (tests/transport.test.ts,
 * the fleet's end-to-end test); this is only how many messages a run sends.
 */
import { describe, expect, test } from 'bun:test'
import { chunkCount } from '../src/runs/fan-out'
import { inProcessTransport, laneOf, type Transport } from '../src/runs/transport'
import { CandleStore } from '../src/market/candle-store'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

describe('a run cut into chunks', () => {
  test('one chunk per worker where tasks are pinned, two per worker where they are not', () => {
    expect(chunkCount(535, { parallelism: 2, chunksPerWorker: 1 })).toBe(2)
    expect(chunkCount(535, { parallelism: 2 })).toBe(4)
    expect(chunkCount(535, { parallelism: 3, chunksPerWorker: 2 })).toBe(6)
  })

  test('a small run is never cut finer than four coins a chunk', () => {
    expect(chunkCount(5, { parallelism: 4, chunksPerWorker: 1 })).toBe(2)
    expect(chunkCount(1, { parallelism: 2 })).toBe(1)
  })

  test("the calling thread's transport pins its tasks; a request's lane cuts by it, a job's lane keeps two a worker", () => {
    const store = CandleStore.open(mkdtempSync(join(tmpdir(), 'perpsim-chunks-')))
    const transport = inProcessTransport(store)
    expect(transport.chunksPerWorker).toBe(1)
    expect(chunkCount(535, laneOf(transport, 'interactive'))).toBe(1)
    expect(chunkCount(535, laneOf(transport, 'background'))).toBe(2)
  })

  test('a transport that says nothing of its workers gets two chunks each', () => {
    const bare: Transport = { parallelism: 3, submit: () => Promise.reject(new Error('unused')), stats: () => null, close: async () => {} }
    expect(chunkCount(535, laneOf(bare, 'interactive'))).toBe(6)
  })
})
