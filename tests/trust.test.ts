import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { dayLeaves, dayRoots, signals } from '../db/schema'
import { checkAdminKey } from '../src/http/admin-auth'
import { sealDays } from '../src/live/day-roots'
import { scanSignals } from '../src/live/signal-scan'
import { scoreSignals } from '../src/live/signal-score'
import { DAY_MS, HOUR_MS } from '../src/time'
import { verifyLeaf } from '../src/cli-trust'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const START = T0 + 30 * DAY_MS
const END = START + 4 * DAY_MS
const key = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')

const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 40, 31), nowMs: START, env: { ADMIN_KEY: 's3cret-key' } })
afterAll(() => h.cleanup())
const sealed: string[] = []
let firstWait: string | null = null

beforeAll(async () => {
  for (let t = START; t <= END; t += HOUR_MS) {
    h.clock.set(t + 10_000)
    await scanSignals(h.deps)
    // at the first midnight, the day cannot be sealed before its last signals are scored
    if (t === START + DAY_MS) firstWait = (await sealDays(h.deps)).waiting
    await scoreSignals(h.deps)
    sealed.push(...(await sealDays(h.deps)).sealed)
  }
}, 60_000)

const sha = (...parts: (Uint8Array | string)[]) => {
  const x = createHash('sha256')
  for (const p of parts) x.update(p)
  return new Uint8Array(x.digest())
}
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')
/** RFC 6962 MTH written out again here, independently of src/engine/merkle.ts */
function mth(hashes: Uint8Array[]): Uint8Array {
  if (hashes.length === 1) return hashes[0]!
  let k = 1
  while (k * 2 < hashes.length) k *= 2
  return sha(new Uint8Array([1]), mth(hashes.slice(0, k)), mth(hashes.slice(k)))
}

describe('day roots', () => {
  test('days are sealed in order once over and final, from the first record day', async () => {
    expect(sealed.length).toBeGreaterThanOrEqual(3)
    expect(sealed).toEqual([...sealed].sort())
    expect(firstWait).not.toBeNull()
    const rows = (await h.deps.db.orm.select().from(dayRoots))
    for (const r of rows) expect(dayMsOf(r.day) + DAY_MS).toBeLessThanOrEqual(r.sealedAtMs)
  })

  test("a sealed day's root is RFC 6962's over its canonical leaves, and each leaf is a final scored record of that day", async () => {
    let leaves = 0
    for (const day of sealed) {
      const root = await h.req(`/trust/merkle/${day}`)
      expect(root.status).toBe(200)
      expect(root.body.algorithm).toBe('rfc6962-sha256')
      expect(root.body.sealed).toBe(true)
      const l = await h.req(`/trust/merkle/${day}/leaves`)
      expect(l.body.leaf_count).toBe(root.body.leaf_count)
      if (root.body.leaf_count === 0) {
        expect(root.body.root).toBeNull()
        continue
      }
      const hashes = l.body.leaves.map((x: any) => {
        const obj = JSON.parse(x.leaf)
        // canonical: keys sorted at every depth, no whitespace
        expect(JSON.stringify(sortKeys(obj))).toBe(x.leaf)
        expect(obj.kind).toBe('scored_signal')
        expect(['tp', 'sl', 'timeout', 'liquidation', 'unscoreable']).toContain(obj.status)
        const placed = Date.parse(obj.exit_time ?? obj.finalized_at)
        expect(key(placed)).toBe(day)
        const leafHash = sha(new Uint8Array([0]), x.leaf)
        expect(hex(leafHash)).toBe(x.leaf_hash)
        return leafHash
      })
      expect(hex(mth(hashes))).toBe(root.body.root)
      leaves += hashes.length
    }
    expect(leaves).toBeGreaterThan(5)
  })

  test("a leaf is the record /signals/scored serves for that id", async () => {
    const leafRows = await h.deps.db.orm.select().from(dayLeaves)
    const day = sealed.find(d => leafRows.some(l => l.day === d))!
    const l = await h.req(`/trust/merkle/${day}/leaves`)
    const first = JSON.parse(l.body.leaves[0].leaf)
    const s = await h.req(`/signals/scored?signal_ids=${encodeURIComponent(first.id)}`)
    expect({ kind: 'scored_signal', ...s.body.signals[0] }).toEqual(first)
  })

  test('every leaf has an audit path that verifies against the root', async () => {
    for (const day of sealed) {
      const l = await h.req(`/trust/merkle/${day}/leaves`)
      for (const x of l.body.leaves) {
        const p = await h.req(`/trust/merkle/${day}/proof?leaf=${x.leaf_hash}`)
        expect(p.status).toBe(200)
        expect(p.body.leaf_index).toBe(x.index)
        let r = Buffer.from(x.leaf_hash, 'hex') as Uint8Array
        // walk up with the RFC 9162 rule, written out here again
        let fn = p.body.leaf_index
        let sn = p.body.tree_size - 1
        for (const sib of p.body.audit_path.map((s: string) => Buffer.from(s, 'hex'))) {
          if (fn % 2 === 1 || fn === sn) {
            r = sha(new Uint8Array([1]), sib, r)
            if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) ((fn >>= 1), (sn >>= 1))
          } else r = sha(new Uint8Array([1]), r, sib)
          fn >>= 1
          sn >>= 1
        }
        expect(hex(r)).toBe(p.body.root)
      }
    }
  })

  test('a day with no records has root null and leaf_count 0; a bad date is a 422', async () => {
    const empty = await h.req(`/trust/merkle/${key(T0)}`)
    expect(empty.status).toBe(200)
    expect(empty.body).toMatchObject({ date: key(T0), leaf_count: 0, root: null, algorithm: 'rfc6962-sha256' })
    for (const bad of ['2025013', '20250230', 'abcdefgh', '2025-01-01']) {
      const r = await h.req(`/trust/merkle/${bad}`)
      expect(r.status).toBe(422)
      expect(JSON.stringify(r.body.detail)).toContain('date')
    }
  })

  test('a day that has not ended by the clock is a 404 "not sealed yet", not the empty root of a finished day', async () => {
    const now = h.clock.now()
    const today = key(now)
    for (const path of [`/trust/merkle/${today}`, `/trust/merkle/${today}/leaves`, `/trust/merkle/${today}/proof?leaf=${'0'.repeat(64)}`, `/trust/merkle/${key(now + 3 * DAY_MS)}`]) {
      const r = await h.req(path)
      expect([path, r.status]).toEqual([path, 404])
      expect(r.body.detail).toContain('not sealed yet')
    }
    // a day ends at its last millisecond: from then on it has a root
    const start = Date.UTC(2030, 0, 1)
    h.clock.set(start + DAY_MS - 1)
    expect((await h.req(`/trust/merkle/${key(start)}`)).status).toBe(404)
    h.clock.set(start + DAY_MS)
    // ended, the seal job has not run: the records final so far, sealed false (its root may still change)
    expect((await h.req(`/trust/merkle/${key(start)}`)).body).toMatchObject({ date: key(start), leaf_count: 0, root: null, sealed: false, sealed_at: null })
    h.clock.set(now)
  })

  test('a proof of an unknown leaf is a 404; a malformed hash a 422', async () => {
    expect((await h.req(`/trust/merkle/${sealed[0]}/proof?leaf=${'0'.repeat(64)}`)).status).toBe(404)
    expect((await h.req(`/trust/merkle/${sealed[0]}/proof?leaf=xyz`)).status).toBe(422)
  })

  test('a sealed root and its leaves cannot be changed, removed or added to (SQLite triggers)', async () => {
    const c = h.deps.db
    const day = sealed[0]!
    await expect(c.rows(sql.raw(`UPDATE day_roots SET root = 'x' WHERE day = '${day}'`))).rejects.toThrow(/never changes/)
    await expect(c.rows(sql.raw(`DELETE FROM day_roots WHERE day = '${day}'`))).rejects.toThrow(/never removed/)
    await expect(c.rows(sql.raw(`INSERT OR REPLACE INTO day_roots VALUES ('${day}', 0, NULL, 'x', 0)`))).rejects.toThrow()
    await expect(c.rows(sql.raw(`UPDATE day_leaves SET leaf = '{}'`))).rejects.toThrow(/never changes/)
    await expect(c.rows(sql.raw(`DELETE FROM day_leaves`))).rejects.toThrow(/never removed/)
    await expect(c.rows(sql.raw(`INSERT INTO day_leaves VALUES ('${day}', 999, 'extra', '{}', 'ab')`))).rejects.toThrow(/no further leaves/)
  })

  test('a restart (a second sealing pass) seals nothing twice', async () => {
    expect((await sealDays(h.deps)).sealed).toEqual([])
  })
})

describe('trust verify', () => {
  test('checks a leaf file against a running server, and against the local database', { timeout: 20_000 }, async () => {
    const server = h.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const leafRows = await h.deps.db.orm.select().from(dayLeaves)
    const day = sealed.find(d => leafRows.some(l => l.day === d))!
      const l = await h.req(`/trust/merkle/${day}/leaves`)
      const record = JSON.parse(l.body.leaves.at(-1).leaf)
      const file = join(h.dataDir, 'leaf.json')
      writeFileSync(file, JSON.stringify(record, null, 2)) // any key order, any whitespace
      const url = `http://127.0.0.1:${server.server!.port}`
      // the server runs in this process: the CLI must be awaited, not run synchronously
      const run = async () => {
        const p = Bun.spawn(['./node_modules/.bin/bun', 'src/cli.ts', 'trust', 'verify', file, '--date', day, '--url', url], {
          env: { ...process.env, OFFLINE: '1', DATA_DIR: h.dataDir, LOG_LEVEL: 'silent' },
          stdout: 'pipe',
        })
        const out = await new Response(p.stdout).text()
        return { out, code: await p.exited }
      }
      const good = await run()
      expect(good.out).toContain('verified: leaf')
      expect(good.code).toBe(0)
      const tampered = { ...record, pnl_pct: record.pnl_pct + 1 }
      writeFileSync(file, JSON.stringify(tampered))
      const bad = await run()
      expect(bad.out).toContain('NOT verified')
      expect(bad.code).toBe(1)
      const local = await verifyLeaf(l.body.leaves[0].leaf, day, { db: h.deps.db })
      expect(local.ok).toBe(true)
      expect(local.root).toBe(l.body.root)
    } finally {
      await server.stop()
    }
  })
})

describe('admin routes', () => {
  test('the key is compared as the contract asks: unset 503, missing 401, wrong 403', async () => {
    expect(checkAdminKey('', 'x')).toMatchObject({ ok: false, status: 503 })
    expect(checkAdminKey('k', null)).toMatchObject({ ok: false, status: 401 })
    expect(checkAdminKey('k', '')).toMatchObject({ ok: false, status: 401 })
    expect(checkAdminKey('k', 'K')).toMatchObject({ ok: false, status: 403 })
    expect(checkAdminKey('k', 'k-longer')).toMatchObject({ ok: false, status: 403 })
    expect(checkAdminKey('k', 'k')).toEqual({ ok: true })
  })

  for (const path of ['/trust/real-track', '/real-mode-checklist']) {
    test(`${path}: 401 without the header, 403 with a wrong key, 200 with the right one`, async () => {
      expect((await h.req(path)).status).toBe(401)
      const wrong = await h.req(path, { headers: { 'X-Admin-Key': 'nope' } })
      expect(wrong.status).toBe(403)
      expect(wrong.body.detail).toContain('X-Admin-Key')
      expect((await h.req(path, { headers: { 'X-Admin-Key': 's3cret-key' } })).status).toBe(200)
    })
  }

  test('without ADMIN_KEY the admin routes answer 503 with a clear message', async () => {
    const bare = makeHarness({ fill: store => fillWalkUniverse(store, ['BTCUSDT'], T0, 5, 1) })
    try {
      for (const path of ['/trust/real-track', '/real-mode-checklist']) {
        const r = await bare.req(path, { headers: { 'X-Admin-Key': 'anything' } })
        expect(r.status).toBe(503)
        expect(r.body.detail).toContain('ADMIN_KEY')
      }
    } finally {
      bare.cleanup()
    }
  })

  test('the real-money track is imported from CSV and served without bot or session ids', async () => {
    const csv = join(h.dataDir, 'nav.csv')
    writeFileSync(csv, 'time,bot_id,session_id,nav\n2025-01-01T00:00:00Z,bot-7,sess-1,1000\n2025-01-02T00:00:00Z,bot-7,sess-1,1100\n2025-01-03T00:00:00Z,bot-9,sess-2,990\n')
    const proc = Bun.spawnSync(['./node_modules/.bin/bun', 'src/cli.ts', 'realtrack', 'import', csv], { env: { ...process.env, OFFLINE: '1', DATA_DIR: h.dataDir, LOG_LEVEL: 'silent' } })
    expect(proc.exitCode).toBe(0)
    expect(proc.stdout.toString()).toContain('3 new points')
    // the CLI wrote the service's database file; this harness reads its in-memory one, so import there too
    const { importNavFile } = await import('../src/cli-trust')
    expect((await importNavFile(h.deps.db, csv, 0)).added).toBe(3)
    const r = await h.req('/trust/real-track', { headers: { 'X-Admin-Key': 's3cret-key' } })
    expect(r.body.count).toBe(3)
    expect(r.body.return_pct).toBe(-1)
    expect(r.body.max_drawdown_pct).toBe(10)
    expect(JSON.stringify(r.body)).not.toMatch(/bot|sess/)
  })

  test('the checklist is computed from the real state, each item with status, value, threshold and action', async () => {
    const r = await h.req('/real-mode-checklist', { headers: { 'X-Admin-Key': 's3cret-key' } })
    const by = Object.fromEntries(r.body.items.map((i: any) => [i.id, i]))
    expect(by.real_data.status).toBe('pass') // the walk universe is imported as binance-csv
    expect(by.admin_key.status).toBe('pass')
    expect(by.paper_cycle_completed.status).toBe('fail')
    expect(by.paper_cycle_completed.action).toBeString()
    expect(by.scoring_coverage.value).toBe(1)
    // the fixture store holds the next bars already: every hourly signal was recorded 10 s after its close
    expect(by.publication_latency).toMatchObject({ status: 'pass', value: { median: 10, p90: 10 } })
    expect(r.body.ready).toBe(false)
    for (const i of r.body.items) for (const k of ['id', 'status', 'value', 'threshold', 'action']) expect(i).toHaveProperty(k)
  })
})

describe('/trust/metrics', () => {
  test('counts and latency come from the records', async () => {
    const r = await h.req('/trust/metrics')
    expect(r.status).toBe(200)
    const now = h.clock.now()
    const all = (await h.deps.db.orm.select().from(signals))
    expect(r.body.signals_published_24h).toBe(all.filter(s => s.publishedAtMs >= now - DAY_MS).length)
    expect(r.body.signals_published_7d).toBe(all.filter(s => s.publishedAtMs >= now - 7 * DAY_MS).length)
    const lat = all.filter(s => !s.backfill && s.publishedAtMs >= now - 7 * DAY_MS).map(s => (s.publishedAtMs - s.signalTimeMs) / 1000).sort((a, b) => a - b)
    expect(r.body.publication_latency_s.samples).toBe(lat.length)
    expect(r.body.publication_latency_s.median).toBe(lat[Math.floor((lat.length - 1) / 2)]) // all hourly scans: one value, 10 s
    expect(r.body.scoring_coverage).toBe(1)
    expect(r.body.generated_at).toMatch(/Z$/)
    expect(JSON.stringify(r.body)).not.toMatch(/user|email/)
  })
})

function dayMsOf(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)))
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v === null || typeof v !== 'object') return v
  return Object.fromEntries(Object.keys(v as object).sort().map(k => [k, sortKeys((v as Record<string, unknown>)[k])]))
}
