/**
 * Test harness: a temp DATA_DIR, a real CandleStore and a migrated in-memory DB, with
 * a ManualClock, composed by the real buildApp. Call `cleanup()` in afterAll.
 */
import { rmSync } from 'node:fs'
import { buildApp } from '../../src/app'
import { ManualClock } from '../../src/clock'
import { loadConfig } from '../../src/config'
import { openDb } from '../../src/db'
import type { AppDeps } from '../../src/deps'
import { CandleStore } from '../../src/market/candle-store'
import { InProcessExecutor, PoolExecutor, type Executor } from '../../src/runs/compute/executor'
import { ExecutorTransport, type Transport } from '../../src/runs/transport'

import { tempDir } from './fixtures'
import { composeDeps } from '../../src/compose'

export { fillWalkUniverse, SHARED, tempDir, walkCandles } from './fixtures'

export interface Harness {
  dataDir: string
  deps: AppDeps
  app: ReturnType<typeof buildApp>
  clock: ManualClock
  /** where the runs' tasks go: in-process, or the worker pool when `workers` was given */
  executor: Executor
  /** the run service's transport: `executor` behind the default ExecutorTransport (or the test's own over it) */
  transport: Transport
  /** GET/POST through app.handle; returns status, parsed JSON (or text) and headers */
  req(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; body: any; headers: Headers }>
  cleanup(): void
}

export function makeHarness(opts: { nowMs?: number; dataDir?: string; fill?: (store: CandleStore) => void; env?: Record<string, string>; workers?: number; queueMax?: number; transport?: (inner: Transport, store: CandleStore) => Transport } = {}): Harness {
  const dataDir = opts.dataDir ?? tempDir()
  const config = { ...loadConfig({ OFFLINE: '1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MIN: '0', RATE_LIMIT_OTHER_PER_MIN: '0', RATE_LIMIT_SUBSCRIBE_PER_MIN: '0', SHED_LAG_MS: '0', ...opts.env }) }
  const store = CandleStore.open(dataDir)
  opts.fill?.(store)
  const clock = new ManualClock(opts.nowMs ?? Date.UTC(2026, 10, 22))
  const db = openDb(':memory:')
  const executor: Executor = opts.workers ? new PoolExecutor(store, opts.workers, (opts.queueMax ?? 64) * 256) : new InProcessExecutor(store)
  // `transport`: a test's own transport over the default one (a recording, a queue's round trip)
  const transport = opts.transport ? opts.transport(new ExecutorTransport(executor), store) : new ExecutorTransport(executor)
  const deps = composeDeps({ config, clock, store, db, transport, maxRuns: opts.queueMax ?? 64 })
  const app = buildApp(deps)
  return {
    dataDir,
    deps,
    app,
    clock,
    executor,
    transport,
    async req(path, init = {}) {
      const headers = new Headers(init.headers)
      let body = init.body
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json')
        body = JSON.stringify(init.json)
      }
      const res = await app.handle(new Request(`http://localhost${path}`, { ...init, headers, body }))
      const text = await res.text()
      let parsed: any = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers }
    },
    cleanup() {
      void executor.close()
      if (opts.transport) void transport.close()
      void db.close()
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

