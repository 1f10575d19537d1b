/**
 * The push feed across a crash (docs/events.md): a real EventSource client (the `eventsource`
 * package, WHATWG-compliant) reads /events from the real server while its jobs record
 * signals, scores, roots, rankings and paper positions; the server is killed with SIGKILL
 * mid-stream and started again on the same DATA_DIR and port; the client reconnects by
 * itself with Last-Event-ID, and the ids it has received are exactly the events table's
 * ids: nothing lost, nothing twice.
 */
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { EventSource } from 'eventsource'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { CandleStore } from '../src/market/candle-store'
import { fillLiveStore, tempDir } from './helpers/fixtures'
import { BUN, freePort, ROOT } from './helpers/serve'

const dataDir = tempDir()
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const fillStore = () => fillLiveStore(CandleStore.open(dataDir), 91)

function serve(port: number) {
  return Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', LOG_LEVEL: 'warn', WORKERS: '1' },
    stdout: 'ignore',
    stderr: 'ignore',
  })
}

/** The events table as a separate reader sees it (WAL: readers never block the server). */
function tableIds(): number[] {
  const db = new Database(join(dataDir, 'perpsim.sqlite'), { readonly: true })
  try {
    return (db.query('SELECT id FROM events ORDER BY id').all() as { id: number }[]).map(r => r.id)
  } finally {
    db.close()
  }
}

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now()
  while (!ok()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

describe('GET /events end to end', () => {
  test('an EventSource client resumes across a kill -9 of the server with nothing lost or doubled', async () => {
    fillStore()
    const port = await freePort()
    let proc = serve(port)
    const seen: number[] = []
    const kinds = new Set<string>()
    let opened = 0
    let errorEvents = 0
    // last_event_id=0: everything from the first event; the reconnects send Last-Event-ID instead
    const es = new EventSource(`http://127.0.0.1:${port}/events?last_event_id=0`)
    es.onopen = () => opened++
    for (const kind of ['signal', 'scored', 'day_root', 'ranking', 'paper'])
      es.addEventListener(kind, e => {
        seen.push(Number((e as MessageEvent).lastEventId))
        kinds.add(kind)
      })
    // a server-sent `error` event (a dropped client, an expired resume point) has data; the
    // client's own connection errors do not
    es.addEventListener('error', e => {
      if ((e as MessageEvent).data !== undefined) errorEvents++
    })
    try {
      // the start-up catch-up writes events for a while: kill the server in the middle of it
      await until('the first events', () => seen.length >= 10, 90_000)
      proc.kill('SIGKILL')
      await proc.exited
      const beforeKill = seen.length
      proc = serve(port)
      await until('the client to reconnect to the new process', () => opened >= 2, 90_000)
      // the new process finishes the catch-up; wait until the table is still for 3 s and the client has it all
      let last = -1
      let stillSince = Date.now()
      await until(
        'the client to catch up with a quiet table',
        () => {
          const n = tableIds().length
          if (n !== last) (last = n), (stillSince = Date.now())
          return n > 0 && seen.length >= n && Date.now() - stillSince > 3000
        },
        150_000,
      )
      const ids = tableIds()
      expect(seen.length).toBeGreaterThan(beforeKill)
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen).toEqual(ids)
      expect(kinds.has('signal')).toBe(true)
      expect(errorEvents).toBe(0)
    } finally {
      es.close()
      proc.kill('SIGKILL')
      await proc.exited
    }
  }, 300_000)

  test('a graceful stop (SIGTERM) ends the open streams at once instead of waiting for them', async () => {
    const port = await freePort()
    const proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', LOG_LEVEL: 'warn', WORKERS: '1', JOBS: '0' },
      stdout: 'ignore',
      stderr: 'ignore',
    })
    try {
      let res: Response | null = null
      const t0 = Date.now()
      while (!res && Date.now() - t0 < 60_000) {
        res = await fetch(`http://127.0.0.1:${port}/events`).catch(() => null)
        if (!res) await Bun.sleep(100)
      }
      expect(res!.status).toBe(200)
      const reader = res!.body!.getReader()
      await reader.read()
      const stopped = Date.now()
      proc.kill('SIGTERM')
      // the stream ends (the server closed it) and the process exits well inside the 10 s grace
      for (;;) if ((await reader.read()).done) break
      expect(await proc.exited).toBe(0)
      expect(Date.now() - stopped).toBeLessThan(5000)
    } finally {
      proc.kill('SIGKILL')
      await proc.exited
    }
  }, 90_000)
})
