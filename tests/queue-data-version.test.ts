/**
 * The data version a queued task carries is per coin: for every coin it reads, the API
 * store's last candle and funding time and the digest of those rows (src/market/symbol-digest.ts,
 * src/runs/queue-wire.ts). A worker whose store differs in a coin refuses only the tasks
 * that read that coin, naming it; a store that holds more (newer hours, other coins) takes
 * the task and shows it only the rows it was cut for, so the answer is the same bytes. With
 * no worker able to take a task, the API answers 503 naming the coin.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { Redis } from 'ioredis'
import { CandleStore } from '../src/market/candle-store'
import { generateStore } from '../src/market/generate-store'
import { BLOCK_ROWS } from '../src/market/symbol-digest'
import { boundedView, reachesFurther } from '../src/runs/compute/store-view'
import { taskReads } from '../src/runs/compute/task-reads'
import { QueueTransport } from '../src/runs/queue-transport'
import { acceptance, fleetCoins, fleetKey, fleetMismatch, QUEUE_ENGINE_VERSION, readsVersion, REFUSED, symbolRead, type FleetEntry } from '../src/runs/queue-wire'
import { HOUR_MS } from '../src/time'
import { walkCandles } from './helpers/fixtures'
import { makeHarness, type Harness } from './helpers/harness'
import { testRedis, type TestRedis } from './helpers/redis'
import { BUN, ROOT } from './helpers/serve'

const SYMBOLS = ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT', 'LINKUSDT']
const START = Date.UTC(2026, 6, 1)
const DAYS = 120
const NOW = Date.UTC(2026, 10, 20, 0, 30)

/**
 * A store of SYMBOLS (seed k per coin, funding every 8 h, a premium-index sample at each
 * hour's close), `extraHours` newer hours on every coin, `other` coins walked from another
 * seed, and `more` coins besides.
 */
function fill(store: CandleStore, o: { extraHours?: number; other?: string[]; more?: string[]; otherSamples?: string[] } = {}): void {
  const rows = 24 * DAYS + (o.extraHours ?? 0)
  ;[...SYMBOLS, ...(o.more ?? [])].forEach((s, k) => {
    const cols = walkCandles(rows, START, (o.other?.includes(s) ? 1000 : 70) + k)
    store.appendCandles(s, cols, rows)
    const t = cols[0].filter(ms => ms % (8 * HOUR_MS) === 0)
    store.appendFunding(s, t, t.map((_, i) => 0.0001 * (((i * 7 + k) % 5) - 2)), t.length)
    store.appendSamples('premium_index', s, cols[0].map(ms => ms + HOUR_MS), cols[4].map((c, i) => (c - cols[1][i]) / c / (o.otherSamples?.includes(s) ? 50 : 100)), rows)
  })
  store.upsertMeta([...SYMBOLS, ...(o.more ?? [])].map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: START })), 'binance-csv')
}

function tempStore(): { store: CandleStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-dv-'))
  return { store: CandleStore.open(dir), dir }
}

describe('a coin\'s digest (symbol-digest.ts)', () => {
  test('the same rows give the same digest whether imported at once or appended hour by hour (other segment files), and one changed close changes it', () => {
    const rows = 2 * BLOCK_ROWS + 300
    const cols = walkCandles(rows, START, 5)
    const a = tempStore()
    const b = tempStore()
    const c = tempStore()
    try {
      a.store.appendCandles('ETHUSDT', cols, rows)
      // b: the first block and a half at once, then 100 single hours (compacted on the way), then the rest
      const cut = (from: number, to: number) => cols.map(col => col.slice(from, to))
      const first = BLOCK_ROWS + BLOCK_ROWS / 2
      b.store.appendCandles('ETHUSDT', cut(0, first), first)
      for (let i = first; i < first + 100; i++) b.store.appendCandles('ETHUSDT', cut(i, i + 1), 1, { durable: false })
      b.store.appendCandles('ETHUSDT', cut(first + 100, rows), rows - first - 100)
      expect(b.store.symbolRows('ETHUSDT')).toEqual(a.store.symbolRows('ETHUSDT'))
      // a store re-opened from disk (other buffers, the same rows) agrees too
      expect(CandleStore.open(b.dir).symbolRows('ETHUSDT')).toEqual(a.store.symbolRows('ETHUSDT'))
      const changed = cols.map(col => [...col])
      changed[4][10] *= 1.0001
      c.store.appendCandles('ETHUSDT', changed, rows)
      expect(c.store.symbolRows('ETHUSDT')!.digest).not.toBe(a.store.symbolRows('ETHUSDT')!.digest)
      expect(c.store.symbolRows('ETHUSDT')!.lastBarMs).toBe(a.store.symbolRows('ETHUSDT')!.lastBarMs)
    } finally {
      for (const d of [a, b, c]) rmSync(d.dir, { recursive: true, force: true })
    }
  })

  test('a store with newer hours has the same digest up to the earlier last bar, and says how many rows that is of how many', () => {
    const api = tempStore()
    const ahead = tempStore()
    try {
      fill(api.store)
      fill(ahead.store, { extraHours: 30 })
      const mine = api.store.symbolRows('SOLUSDT')!
      const theirs = ahead.store.symbolRowsWithin('SOLUSDT', mine.lastBarMs, mine.lastFundingMs, mine.lastSampleMs)!
      expect({ lastBarMs: theirs.lastBarMs, lastFundingMs: theirs.lastFundingMs, lastSampleMs: theirs.lastSampleMs, digest: theirs.digest }).toEqual(mine)
      // candles, funding, premium index, open interest: up to the API's times, and in all
      expect(theirs.rows).toEqual([24 * DAYS, 3 * DAYS, 24 * DAYS, 0])
      expect(theirs.totals).toEqual([24 * DAYS + 30, 3 * DAYS + 4, 24 * DAYS + 30, 0])
      expect(ahead.store.symbolRows('SOLUSDT')!.digest).not.toBe(mine.digest)
    } finally {
      for (const d of [api, ahead]) rmSync(d.dir, { recursive: true, force: true })
    }
  })

  test('digesting every coin of a store again costs nothing: a 535-coin store\'s versions come from the kept blocks', () => {
    const big = tempStore()
    try {
      const rows = 24 * 365
      for (let k = 0; k < 535; k++) big.store.appendCandles(`C${k}USDT`, walkCandles(rows, START, k + 1), rows, { durable: false })
      const first = performance.now()
      const coins = fleetCoins(big.store)
      const firstMs = performance.now() - first
      const again = performance.now()
      expect(fleetCoins(big.store)).toEqual(coins)
      const againMs = performance.now() - again
      // one hour appended to every coin: only each coin's last partial block is hashed again
      for (let k = 0; k < 535; k++) big.store.appendCandles(`C${k}USDT`, walkCandles(1, START + rows * HOUR_MS, k + 1), 1, { durable: false })
      const hour = performance.now()
      fleetCoins(big.store)
      const hourMs = performance.now() - hour
      expect(againMs).toBeLessThan(firstMs / 5)
      expect(hourMs).toBeLessThan(firstMs)
    } finally {
      rmSync(big.dir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('whether a worker takes a task (queue-wire.ts acceptance, fleetMismatch)', () => {
  const api = tempStore()
  const other = tempStore()
  const ahead = tempStore()
  fill(api.store)
  fill(other.store, { other: ['LINKUSDT'] })
  fill(ahead.store, { extraHours: 5, more: ['DOGEUSDT'] })
  afterAll(() => {
    for (const d of [api, other, ahead]) rmSync(d.dir, { recursive: true, force: true })
  })
  const task = (symbols: string[]) => {
    const reads = taskReads('coinTrades', { spec: null as never, symbols }).map(s => symbolRead(s, api.store.symbolRows(s)))
    return { reads, dataVersion: readsVersion(reads), engineVersion: QUEUE_ENGINE_VERSION }
  }
  const worker = (store: CandleStore) => ({ name: 'w:1', engineVersion: QUEUE_ENGINE_VERSION, rowsWithin: (s: string, b: number, f: number, x: readonly number[]) => store.symbolRowsWithin(s, b, f, x) })
  const entry = (store: CandleStore): FleetEntry => ({ name: 'w:1', slots: 1, dataVersion: store.dataVersion(), engineVersion: QUEUE_ENGINE_VERSION, coins: fleetCoins(store), seenMs: Date.now() })

  test('a store that differs in one coin refuses a task reading that coin, naming it, and takes one that does not', () => {
    const refused = acceptance(task(['ETHUSDT', 'LINKUSDT']), worker(other.store))
    expect('refusal' in refused && refused.refusal).toStartWith(`${REFUSED} w:1: its LINKUSDT rows up to 2026-10-28T23:00Z differ (digest `)
    expect(acceptance(task(['ETHUSDT', 'SOLUSDT']), worker(other.store))).toEqual({ rows: { ETHUSDT: [24 * DAYS, 3 * DAYS, 24 * DAYS, 0], SOLUSDT: [24 * DAYS, 3 * DAYS, 24 * DAYS, 0] } })
    // the API's check on the fleet entry says the same before it sends anything
    expect(fleetMismatch(entry(other.store), task(['ETHUSDT', 'LINKUSDT']))).toBe('other LINKUSDT rows up to 2026-10-28T23:00Z')
    expect(fleetMismatch(entry(other.store), task(['ETHUSDT', 'SOLUSDT']))).toBeNull()
  })

  test('a store whose derivatives samples of a coin differ (the candles alike) refuses a task reading it', () => {
    const samples = tempStore()
    try {
      fill(samples.store, { otherSamples: ['XRPUSDT'] })
      const refused = acceptance(task(['XRPUSDT']), worker(samples.store))
      expect('refusal' in refused && refused.refusal).toContain('its XRPUSDT rows up to 2026-10-28T23:00Z differ')
      expect('rows' in acceptance(task(['ETHUSDT']), worker(samples.store))).toBe(true)
    } finally {
      rmSync(samples.dir, { recursive: true, force: true })
    }
  })

  test('a store with newer hours and another coin takes the task and cuts each coin to the rows it was cut for', () => {
    const got = acceptance(task(['ETHUSDT', 'SOLUSDT']), worker(ahead.store))
    expect(got).toEqual({ rows: { ETHUSDT: [24 * DAYS, 3 * DAYS, 24 * DAYS, 0], SOLUSDT: [24 * DAYS, 3 * DAYS, 24 * DAYS, 0] } })
    const bounds = 'rows' in got ? got.rows : {}
    expect(reachesFurther(ahead.store, bounds)).toBe(true)
    expect(reachesFurther(api.store, bounds)).toBe(false)
    const view = boundedView(ahead.store, bounds, 'v')
    expect(view.bars('ETHUSDT')!.n).toBe(api.store.bars('ETHUSDT')!.n)
    expect([...view.bars('ETHUSDT')!.c]).toEqual([...api.store.bars('ETHUSDT')!.c])
    expect([...view.funding('SOLUSDT')!.t]).toEqual([...api.store.funding('SOLUSDT')!.t])
    expect([...view.samples!('premium_index', 'SOLUSDT')!.value]).toEqual([...api.store.samples('premium_index', 'SOLUSDT')!.value])
    // a coin it does not cut is whole
    expect(view.bars('DOGEUSDT')!.n).toBe(ahead.store.bars('DOGEUSDT')!.n)
    // the fleet check lets it through (the worker checks the digest itself)
    expect(fleetMismatch(entry(ahead.store), task(['ETHUSDT', 'SOLUSDT']))).toBeNull()
  })

  test('a coin the API\'s store lacks is one the task must find nowhere: a worker that has it hides it from the task', () => {
    const doge = { reads: [symbolRead('DOGEUSDT', api.store.symbolRows('DOGEUSDT'))], engineVersion: QUEUE_ENGINE_VERSION }
    expect(doge.reads).toEqual([['DOGEUSDT', -1, -1, '', [-1, -1]]])
    const got = acceptance(doge, worker(ahead.store))
    expect(got).toEqual({ rows: { DOGEUSDT: [0, 0, 0, 0] } })
    const view = boundedView(ahead.store, 'rows' in got ? got.rows : {}, 'v')
    expect([view.bars('DOGEUSDT'), view.funding('DOGEUSDT')]).toEqual([undefined, undefined])
    expect(acceptance(doge, worker(api.store))).toEqual({ rows: { DOGEUSDT: [0, 0, 0, 0] } })
    expect(reachesFurther(api.store, { DOGEUSDT: [0, 0, 0, 0] })).toBe(false)
    expect(fleetMismatch(entry(api.store), doge)).toBeNull()
  })

  test('a store behind the API on a coin, or without it, is named', () => {
    const behind = tempStore()
    try {
      fill(behind.store)
      const eth = task(['ETHUSDT'])
      const later = { ...eth, reads: eth.reads.map(r => [r[0], r[1] + HOUR_MS, r[2], r[3], r[4]] as typeof r) }
      expect(acceptance(later, worker(behind.store))).toEqual({ refusal: `${REFUSED} w:1: its store has ETHUSDT up to 2026-10-28T23:00Z, the task reads it up to 2026-10-29T00:00Z (keep the same store on every host: data sync, then restart the worker)` })
      expect(fleetMismatch(entry(behind.store), later)).toBe('ETHUSDT only up to 2026-10-28T23:00Z')
      const doge = { ...eth, reads: [symbolRead('DOGEUSDT', ahead.store.symbolRows('DOGEUSDT'))] }
      expect('refusal' in acceptance(doge, worker(api.store)) && acceptance(doge, worker(api.store))).toMatchObject({ refusal: expect.stringContaining('its store has no DOGEUSDT') })
      expect(fleetMismatch(entry(api.store), doge)).toBe('no DOGEUSDT')
    } finally {
      rmSync(behind.dir, { recursive: true, force: true })
    }
  })
})

const redis: TestRedis | null = await testRedis('the per-coin data version tests (BullMQ on Redis)')
afterAll(() => redis?.cleanup())

const timeless = (x: unknown): unknown =>
  Array.isArray(x) ? x.map(timeless) : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'compute_time_ms' && k !== 'generated_at').map(([k, v]) => [k, timeless(v)])) : x

async function post(h: Harness, path: string, json: unknown) {
  const r = await h.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(json) }))
  const text = await r.text()
  return { status: r.status, body: JSON.stringify(timeless(JSON.parse(text))) }
}

function startWorker(r: TestRedis, dataDir: string): Subprocess {
  return Bun.spawn([BUN, join(ROOT, 'src/cli.ts'), 'worker'], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: r.url, REDIS_PREFIX: r.prefix, DATA_DIR: dataDir, WORKERS: '1', LOG_LEVEL: 'error', OFFLINE: '1' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
}

async function fleetOf(r: TestRedis, n: number): Promise<void> {
  const client = new Redis(r.url)
  try {
    for (let i = 0; i < 300; i++) {
      if (Object.keys(await client.hgetall(fleetKey(r.prefix))).length >= n) return
      await Bun.sleep(50)
    }
    throw new Error(`${n} workers did not join the fleet`)
  } finally {
    client.disconnect()
  }
}

describe.skipIf(!redis)('per-coin data versions through real `perpsim worker` processes', () => {
  const r = redis!
  let local: Harness
  let remote: Harness
  const stores: { dir: string }[] = []
  const workers: Subprocess[] = []
  beforeAll(() => {
    local = makeHarness({ nowMs: NOW, fill: s => fill(s), workers: 1 })
    remote = makeHarness({ nowMs: NOW, fill: s => fill(s), env: { WORKERS: '2' }, transport: (_inner, store) => new QueueTransport(store, { url: r.url, prefix: r.prefix, parallelism: 2, queueMax: 64 * 256, deadlineMs: 60_000 }) })
  })
  afterAll(() => {
    for (const w of workers) w.kill('SIGKILL')
    local?.cleanup()
    remote?.cleanup()
    for (const s of stores) rmSync(s.dir, { recursive: true, force: true })
  })

  test('a worker whose store has newer hours, another coin and other LINKUSDT rows answers runs without LINKUSDT byte for byte, and refuses those with it: 503 naming LINKUSDT', async () => {
    const odd = tempStore()
    stores.push(odd)
    fill(odd.store, { extraHours: 30, other: ['LINKUSDT'], more: ['DOGEUSDT'] })
    workers.push(startWorker(r, odd.dir))
    await fleetOf(r, 1)
    // no end date: the run reads up to each coin's last bar, which the worker has 30 hours past
    const without = { strategy: 'bb-squeeze-short', symbols: ['ETHUSDT', 'SOLUSDT', 'BTCUSDT', 'XRPUSDT'] }
    const [a, b] = [await post(local, '/simulate', without), await post(remote, '/simulate', without)]
    expect(a.status).toBe(200)
    expect(b).toEqual(a)
    const withLink = { strategy: 'bb-squeeze-short', symbols: ['ETHUSDT', 'LINKUSDT'] }
    const refused = await post(remote, '/simulate', withLink)
    expect(refused.status).toBe(503)
    expect(refused.body).toContain('No simulation worker can run this now: refused by worker ')
    expect(refused.body).toContain(`its LINKUSDT rows up to 2026-10-28T23:00Z differ`)
  }, 60_000)

  test('with a second worker that holds the same LINKUSDT, the run with it completes there: the refusing worker hands its tasks back without spending them', async () => {
    const same = tempStore()
    stores.push(same)
    fill(same.store)
    workers.push(startWorker(r, same.dir))
    await fleetOf(r, 2)
    const withLink = { strategy: 'bb-squeeze-short', symbols: ['ETHUSDT', 'LINKUSDT', 'SOLUSDT', 'BTCUSDT'] }
    const expected = await post(local, '/simulate', withLink)
    for (let i = 0; i < 4; i++) expect(await post(remote, '/simulate', withLink)).toEqual(expected)
  }, 60_000)
})

describe.skipIf(!redis)('a worker keeps its store current as `serve` does', () => {
  test('on a synthetic store (DEMO) it appends the hours since the store ended before it announces itself, so its coins reach the last closed hour', async () => {
    const r = { ...redis!, prefix: `${redis!.prefix}f` }
    const dir = mkdtempSync(join(tmpdir(), 'perpsim-dv-feed-'))
    const hour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
    const { store } = generateStore(dir, { coins: 3, days: 20, seed: 7, endMs: hour - 3 * HOUR_MS }, true)
    const before = store.symbolRows(store.symbols()[0])!.lastBarMs
    const w = Bun.spawn([BUN, join(ROOT, 'src/cli.ts'), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: r.url, REDIS_PREFIX: r.prefix, DATA_DIR: dir, WORKERS: '1', LOG_LEVEL: 'error', OFFLINE: '1', DEMO: '1' },
      stdout: 'ignore',
      stderr: 'inherit',
    })
    const client = new Redis(r.url)
    try {
      let entry: FleetEntry | null = null
      for (let i = 0; i < 300 && !entry; i++) {
        const all = Object.values(await client.hgetall(fleetKey(r.prefix)))
        entry = all.length ? (JSON.parse(all[0]) as FleetEntry) : null
        if (!entry) await Bun.sleep(50)
      }
      expect(entry).not.toBeNull()
      const lastBars = Object.values(entry!.coins).map(v => Number(v.split(':')[0]))
      expect(before).toBeLessThan(hour - HOUR_MS)
      // every coin up to the hour that closed last (its open is an hour before this one)
      expect(lastBars).toEqual(store.symbols().map(() => hour - HOUR_MS))
      // and on disk, as a re-opened store reads it
      expect(CandleStore.open(dir).symbolRows(store.symbols()[0])!.lastBarMs).toBe(hour - HOUR_MS)
    } finally {
      w.kill('SIGKILL')
      await w.exited
      client.disconnect()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
