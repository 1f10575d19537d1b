/**
 * The rankings job on a fixture store, driven by the scheduler on a ManualClock through
 * several simulated days, and its endpoints through app.handle: 404 before the first
 * ranking, the day file byte for byte with its sha256, rows re-verified through
 * POST /simulate, strict_date, 422s, the append-only trigger, /hot-strategies' cache.
 */
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { JobRuns } from '../src/records/job-runs'
import { rankingsJob } from '../src/jobs/rankings'
import { Scheduler } from '../src/jobs/scheduler'
import { createLogger } from '../src/log'
import { DAY_MS } from '../src/time'
import { configurations, GROUPS, PERIODS } from '../src/records/rankings/configurations'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness, type Harness } from './helpers/harness'

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'ADAUSDT']
const START = Date.UTC(2026, 9, 10)
const DATA_DAYS = 45 // candles up to 2026-11-23T23:00Z
let h: Harness
let scheduler: Scheduler

beforeAll(async () => {
  h = makeHarness({ nowMs: Date.UTC(2026, 10, 22, 0, 30), fill: store => fillWalkUniverse(store, SYMBOLS, START, DATA_DAYS, 40) })
  scheduler = new Scheduler({ clock: h.clock, db: h.deps.db, log: createLogger('silent'), timers: false })
  scheduler.register({ ...rankingsJob(h.deps), catchUpMs: 3 * DAY_MS }) // a short window keeps the test quick
})
afterAll(async () => {
  await scheduler.stop()
  h.cleanup()
})

describe('rankings: job and endpoints', () => {
  test('before the first ranking: 404 saying it is being computed', async () => {
    const r = await h.req('/rankings/daily')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('being computed')
    expect((await h.req('/rankings/files/20261122')).status).toBe(404)
  })

  test('simulated days: catch-up at start, one slot per day, a day without data fails and is retried', async () => {
    scheduler.start() // 2026-11-19 to 2026-11-22 are in the catch-up window
    await scheduler.idle()
    h.clock.set(Date.UTC(2026, 10, 23, 0, 30))
    scheduler.tick()
    await scheduler.idle()
    h.clock.set(Date.UTC(2026, 10, 24, 0, 30))
    scheduler.tick()
    await scheduler.idle()
    // 2026-11-25 needs candles up to 2026-11-24T23:00, which the store does not hold
    h.clock.set(Date.UTC(2026, 10, 25, 0, 30))
    scheduler.tick()
    await scheduler.idle()
    const runs = (await new JobRuns(h.deps.db).recent('rankings', 20))
    expect(runs.map(r => [r.slot, r.attempt, r.outcome])).toEqual([
      ['rankings:2026-11-25', 1, 'failed'],
      ['rankings:2026-11-24', 1, 'ok'],
      ['rankings:2026-11-23', 1, 'ok'],
      ['rankings:2026-11-22', 1, 'ok'],
      ['rankings:2026-11-21', 1, 'ok'],
      ['rankings:2026-11-20', 1, 'ok'],
      ['rankings:2026-11-19', 1, 'ok'],
    ])
    expect(runs.filter(r => r.slot <= 'rankings:2026-11-22').every(r => r.trigger === 'catch-up')).toBe(true)
    expect(runs[0].error).toContain('cannot rank 2026-11-25 yet')
    expect(runs[1].counts!.configurations).toBeGreaterThan(100)
    // the next slot retries the failed day first (still no data: failed again, attempt 2)
    h.clock.set(Date.UTC(2026, 10, 26, 0, 30))
    scheduler.tick()
    await scheduler.idle()
    expect((await new JobRuns(h.deps.db).bySlot('rankings:2026-11-25')).map(r => [r.attempt, r.outcome, r.trigger])).toEqual([[1, 'failed', 'schedule'], [2, 'failed', 'catch-up']])
  }, 120_000)

  test('the latest ranking, with every field of the contract', async () => {
    const r = await h.req('/rankings/daily')
    expect(r.status).toBe(200)
    const b = r.body
    expect(b).toMatchObject({ schema_version: 'rankings-2', date: '2026-11-24', period: '30d', group: 'top50', criteria_url: '/rankings/criteria', start_date: '2026-10-25', end_date: '2026-11-23' })
    for (const k of ['generated_at', 'top3', 'worst3', 'weekly_best3', 'citation', 'how_to_reverify', 'research_status_definitions', 'rc_scope', 'headline_has_verified', 'verified_in_ranking', 'headline_note', 'headline_note_kind', 'held_back_count'])
      expect(b).toHaveProperty(k)
    expect(b.research_status_definitions.verified.label).toBe('Verified')
    expect(b.rc_scope).toContain(`${configurations().length} configurations: the ${listStrategies().length} registry strategies`)
    expect(b.top3.length).toBe(3)
    for (const row of [...b.top3, ...b.worst3])
      for (const k of ['rank', 'name_en', 'name_ko', 'strategy', 'direction', 'win_rate', 'profit_factor', 'total_return', 'total_trades', 'sharpe', 'max_drawdown', 'rank_change', 'streak', 'configuration_id', 'timeframe', 'sl_pct', 'tp_pct', 'max_bars', 'status', 'pf_capped'])
        expect(row).toHaveProperty(k)
    expect(b.top3.every((x: any) => x.total_trades >= 10 && x.configuration_id.startsWith('v3:'))).toBe(true)
    // ranks among the eligible rows: 1, 2, 3 for the top, the last ones for worst3; the overall rank beside each
    expect(b.top3.map((x: any) => x.rank)).toEqual([1, 2, 3])
    expect(b.worst3.map((x: any) => x.rank)).toEqual([b.ranked_count, b.ranked_count - 1, b.ranked_count - 2])
    for (const x of [...b.top3, ...b.worst3]) expect(x.overall_rank).toBeGreaterThanOrEqual(x.rank)
    expect(b.generated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    // the day file (rankings-2) keeps every row with both numbers
    const file = (await h.req('/rankings/files/20261124')).body
    expect(file.schema_version).toBe('rankings-2')
    let eligibleSeen = 0
    for (const row of file.periods['7d'].groups.top30.rows) expect([row.rank, row.eligible_rank]).toEqual([expect.any(Number), row.total_trades >= 10 ? ++eligibleSeen : null])
    expect(file.periods['7d'].groups.top30.rows.some((row: any) => row.eligible_rank === null)).toBe(true)
    expect(b.citation).toMatchObject({ date: '2026-11-24', day_file_url: '/rankings/files/20261124', url: '/rankings/daily?date=20261124&period=30d&group=top50&strict_date=true' })
  })

  test('selection: raw rows in rank order; ranks, rank_change and streak agree with the previous day', async () => {
    const today = (await h.req('/rankings/daily?date=20261124&period=7d&group=top30&selection=true')).body
    const yesterday = (await h.req('/rankings/daily?date=20261123&period=7d&group=top30&selection=true&strict_date=true')).body
    const rows = today.selection.rows
    expect(rows.map((x: any) => x.rank)).toEqual(rows.map((_: unknown, i: number) => i + 1))
    // the ranked list and the held-back rows together are the population, in overall rank order
    const all = [...rows, ...today.selection.held_back].sort((a: any, b: any) => a.overall_rank - b.overall_rank)
    expect(all.map((x: any) => x.overall_rank)).toEqual(all.map((_: unknown, i: number) => i + 1))
    expect(today.selection.held_back.every((x: any) => x.total_trades < 10)).toBe(true)
    expect(today.held_back.map((x: any) => [x.configuration_id, x.overall_rank, x.total_trades, x.reason])).toEqual(today.selection.held_back.map((x: any) => [x.configuration_id, x.overall_rank, x.total_trades, 'min_trades']))
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1], c = rows[i]
      const ordered = a.profit_factor > c.profit_factor || (a.profit_factor === c.profit_factor && (a.win_rate > c.win_rate || (a.win_rate === c.win_rate && (a.total_trades > c.total_trades || (a.total_trades === c.total_trades && a.configuration_id < c.configuration_id)))))
      expect(ordered).toBe(true)
    }
    expect(rows.every((x: any) => x.total_trades >= 10)).toBe(true)
    expect(today.held_back_count).toBe(today.held_back.length)
    expect(today.ranked_count).toBe(rows.length)
    const prev = new Map(yesterday.selection.rows.map((x: any) => [x.configuration_id, x]))
    const topTen = new Set(rows.slice(0, 10).map((x: any) => x.configuration_id))
    for (const x of rows) {
      const p: any = prev.get(x.configuration_id)
      expect(x.rank_change).toBe(p ? p.rank - x.rank : null)
      expect(x.streak).toBe(topTen.has(x.configuration_id) ? (p ? p.streak : 0) + 1 : 0)
    }
    expect(today.top3.every((x: any) => x.streak >= 1)).toBe(true)
    expect(today.selection.previous_day.date).toBe('2026-11-23')
    // verified_in_ranking: every configuration of a verified strategy in the population, and the headline kind that follows
    const verified = new Set(listStrategies().filter(s => s.status === 'verified').map(s => s.id))
    const vrows = rows.filter((x: any) => verified.has(x.configuration_id.split(':')[1]))
    expect(today.verified_in_ranking).toEqual(vrows.map((x: any) => ({ configuration_id: x.configuration_id, rank: x.rank, profit_factor: x.profit_factor, pf_capped: x.profit_factor_capped })))
    const inTop = today.top3.some((x: any) => verified.has(x.strategy))
    const kind = inTop || today.top3.length === 0 ? null : vrows.length === 0 ? 'no_verified_in_group' : vrows.every((x: any) => x.profit_factor < 1) ? 'verified_below' : 'verified_ranked_lower'
    expect([today.headline_has_verified, today.headline_note_kind]).toEqual([inTop, kind])
    expect(today.headline_note === null).toBe(kind === null)
    expect(today.selection.day_file_sha256).toBe(today.citation.day_file_sha256)
  })

  test('weekly_best3 agrees with the last seven days recomputed from their selections', async () => {
    for (const [period, group] of [['30d', 'top50'], ['365d', 'btc']] as const) {
      const today = (await h.req(`/rankings/daily?date=20261124&period=${period}&group=${group}&selection=true`)).body
      const acc = new Map<string, { n: number; pf: number; wr: number }>()
      for (let k = 0; k < 7; k++) {
        const d = new Date(Date.UTC(2026, 10, 24) - k * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')
        const r = await h.req(`/rankings/daily?date=${d}&period=${period}&group=${group}&selection=true&strict_date=true`)
        if (r.status === 404) continue // 2026-11-18 has no file
        for (const x of r.body.selection.rows) {
          if (x.total_trades < 10) continue
          const a = acc.get(x.configuration_id) ?? { n: 0, pf: 0, wr: 0 }
          acc.set(x.configuration_id, { n: a.n + 1, pf: a.pf + x.profit_factor, wr: a.wr + x.win_rate })
        }
      }
      const expected = [...acc]
        .filter(([, a]) => a.n >= 5)
        .sort(([ia, a], [ib, b]) => b.pf / b.n - a.pf / a.n || b.wr / b.n - a.wr / a.n || (ia < ib ? -1 : 1))
        .slice(0, 3)
        .map(([id, a]) => [id, a.n])
      expect(expected.length).toBeGreaterThan(0)
      expect(today.weekly_best3.map((w: any) => [w.configuration_id, w.days_ranked])).toEqual(expected)
      const rows = new Map(today.selection.rows.map((x: any) => [x.configuration_id, x]))
      for (const w of today.weekly_best3) expect(w.rank).toBe((rows.get(w.configuration_id) as any)?.rank ?? null)
    }
  })

  test('the day file, byte for byte, matches the sha256 the citation states', async () => {
    const daily = (await h.req('/rankings/daily?date=20261123')).body
    const res = await h.app.handle(new Request('http://localhost/rankings/files/20261123'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(daily.citation.day_file_sha256)
    const file = JSON.parse(new TextDecoder().decode(bytes))
    expect(Object.keys(file.periods)).toEqual([...PERIODS].sort())
    for (const p of PERIODS) expect(Object.keys(file.periods[p].groups).sort()).toEqual([...GROUPS].sort())
    expect(file).toMatchObject({ date: '2026-11-23', previous_date: '2026-11-22', written_by: 'schedule' })
    expect((await h.req('/rankings/daily?date=20261121')).body.generated_at).toBeString()
    expect((await h.app.handle(new Request('http://localhost/rankings/files/20261121'))).status).toBe(200)
  })

  test('each top3 and worst3 row equals the POST /simulate answer to the body it publishes', async () => {
    for (const [period, group] of [['30d', 'top50'], ['7d', 'btc'], ['365d', 'top30']] as const) {
      const b = (await h.req(`/rankings/daily?date=20261124&period=${period}&group=${group}`)).body
      const checks = b.how_to_reverify.rows
      expect(checks.length).toBe(b.top3.length + b.worst3.length)
      for (const c of checks) {
        expect(c.request).toMatchObject({ method: 'POST', path: '/simulate' })
        const sim = await h.req('/simulate', { method: 'POST', json: c.request.body })
        expect(sim.status).toBe(200)
        expect({
          total_trades: sim.body.total_trades,
          win_rate: sim.body.win_rate,
          profit_factor: sim.body.profit_factor,
          profit_factor_capped: sim.body.profit_factor_capped,
          total_return_pct: sim.body.total_return_pct,
          sharpe_ratio: sim.body.sharpe_ratio,
          max_drawdown_pct: sim.body.max_drawdown_pct,
          ruined_at: sim.body.ruined_at,
        }).toEqual(c.expected)
        if (group === 'btc') expect(sim.body.coins_used).toBe(1)
        // a point-in-time group (rules v3) has no symbols form: its coins change over the period
        if (group !== 'btc') {
          expect(c.request_with_symbols).toBeNull()
          expect(c.request.body.universe).toBe('point_in_time')
          expect(sim.body.universe_mode).toBe('point_in_time')
          continue
        }
        const pinned = await h.req('/simulate', { method: 'POST', json: c.request_with_symbols.body })
        expect([pinned.body.total_trades, pinned.body.profit_factor, pinned.body.win_rate, pinned.body.sharpe_ratio, pinned.body.max_drawdown_pct]).toEqual([c.expected.total_trades, c.expected.profit_factor, c.expected.win_rate, c.expected.sharpe_ratio, c.expected.max_drawdown_pct])
      }
    }
    // /simulate's symbols (the btc group's form) refuses symbols the store does not hold
    const unknown = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', symbols: ['NOPEUSDT'] } })
    expect(unknown.status).toBe(404)
    expect(unknown.body.detail).toContain('NOPEUSDT')
  }, 60_000)

  test('strict_date and the served day', async () => {
    const exact = await h.req('/rankings/daily?date=20261125&strict_date=true')
    expect(exact.status).toBe(404)
    expect(exact.body.detail).toContain('2026-11-24')
    const near = await h.req('/rankings/daily?date=20261130')
    expect(near.status).toBe(200)
    expect(near.body).toMatchObject({ date: '2026-11-24', requested_date: '2026-11-30', date_substituted: true })
    expect((await h.req('/rankings/daily?date=20261101')).status).toBe(404)
  })

  test('bad date, period and group are 422s naming the field and the rule, never a default', async () => {
    const cases: [string, string, string][] = [
      ['date=2026-11-24', 'date', ''],
      ['date=20261131', 'date', 'calendar date'],
      ['period=14d', 'period', '7d, 30d, 365d'],
      ['group=top10', 'group', 'top30, top50, top100, btc'],
    ]
    for (const [q, field, msg] of cases) {
      const r = await h.req(`/rankings/daily?${q}`)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['query', field])
      expect(r.body.detail[0].msg).toContain(msg)
    }
    expect((await h.req('/rankings/files/2026-11-24')).status).toBe(422)
  })

  test('SQLite itself rejects an UPDATE or DELETE of a published day file', async () => {
    const db = h.deps.db
    await expect(db.rows(sql.raw("UPDATE ranking_day_files SET body = '{}' WHERE date = '2026-11-23'"))).rejects.toThrow('append-only')
    await expect(db.rows(sql.raw("DELETE FROM ranking_day_files WHERE date = '2026-11-23'"))).rejects.toThrow('append-only')
    await expect(db.rows(sql.raw("UPDATE ranking_day_files SET sha256 = 'x'"))).rejects.toThrow('append-only')
    const [n] = await db.rows<{ n: number }>(sql.raw('SELECT count(*) AS n FROM ranking_day_files'))
    expect(n!.n).toBe(6)
  })

  test('the criteria page states the rules', async () => {
    const r = await h.app.handle(new Request('http://localhost/rankings/criteria'))
    expect(r.headers.get('content-type')).toContain('text/html')
    const html = await r.text()
    for (const s of ['5 / 10 / 48', '10 / 10 / 12', '15 / 15 / 10', 'profit factor, then win rate', 'fewer than 10 trades', '0.05%', 'shown as 999']) expect(html).toContain(s)
  })

  test('/hot-strategies: at least 10 trades each, cached one hour of the clock', async () => {
    h.clock.set(Date.UTC(2026, 10, 23, 12, 0))
    const a = await h.req('/hot-strategies')
    expect(a.status).toBe(200)
    expect(a.body.computed_at).toBe('2026-11-23T12:00:00Z')
    expect(a.body.strategies.every((s: any) => s.total_trades >= 10 && s.period === '30d')).toBe(true)
    for (const k of ['strategy_id', 'strategy_name', 'direction', 'status', 'period', 'profit_factor', 'win_rate', 'total_trades', 'total_return_pct'])
      for (const s of a.body.strategies) expect(s).toHaveProperty(k)
    h.clock.advance(59 * 60_000)
    expect((await h.req('/hot-strategies')).body.computed_at).toBe('2026-11-23T12:00:00Z')
    h.clock.advance(60_000)
    expect((await h.req('/hot-strategies')).body.computed_at).toBe('2026-11-23T13:00:00Z')
    const s = a.body.strategies[0]
    if (s) {
      const sim = await h.req('/simulate', { method: 'POST', json: s.request.body })
      expect([sim.body.profit_factor, sim.body.total_trades]).toEqual([s.profit_factor, s.total_trades])
    }
  }, 60_000)
})
