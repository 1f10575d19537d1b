/**
 * POST /research/sweeps and its reads, through the app (docs/api-research.md, "Sweeps"):
 * the 202 and the ledger, trials equal to the runs they stand for, the overfitting figures
 * over the ledger's n_trials, paging, the event stream, cancelling, the limits, bad input,
 * a restart's "failed: interrupted", and the ledger's append-only rule.
 */
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../src/clock'
import { openDb } from '../src/db'
import { appendTrials, insertResearchRun, researchRun, stopRun } from '../src/records/research-runs'
import { ResearchRunner } from '../src/modules/sweeps/runner'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { T0 } from './research-fixtures'

const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']
const fill = (store: any) => fillWalkUniverse(store, COINS, T0, 120, 21)
const h = makeHarness({ fill })
afterAll(() => h.cleanup())

const BASE = { strategy: 'bb-squeeze-short', top_n: 5 }
const EXIT_SPACE = [
  { path: 'sl_pct', values: [2, 4, 6] },
  { path: 'tp_pct', min: 2, max: 6, step: 2 },
]
const start = (json: Record<string, unknown>, harness = h, headers?: Record<string, string>) => harness.req('/research/sweeps', { method: 'POST', json: { ...BASE, ...json }, headers })

async function settled(id: string, harness = h) {
  for (let i = 0; i < 2000; i++) {
    const r = await harness.req(`/research/sweeps/${id}?limit=1000`)
    if (!['queued', 'running'].includes(r.body.state)) return r
    await Bun.sleep(5)
  }
  throw new Error('sweep did not stop')
}

describe('POST /research/sweeps: an exit-only grid', async () => {
  const r = await start({ space: EXIT_SPACE, objective: 'total_return_pct', min_trades: 1, pbo_blocks: 4 })
  const done = await settled(r.body.id)
  const body = done.body

  test('answers 202 with the id, the trials planned and where to read and follow it', () => {
    expect(r.status).toBe(202)
    expect(r.body).toMatchObject({ state: 'queued', n_planned: 9, links: { self: `/research/sweeps/${r.body.id}`, events: `/research/sweeps/${r.body.id}/events` } })
    expect(r.body.id).toMatch(/^sw-[0-9a-f-]{36}$/)
  })

  test('runs every combination into the ledger: params keyed by the space’s names, every scalar /backtest metric, the trade count, the request hash', () => {
    expect(body.state).toBe('done')
    expect(body.n_trials).toBe(9)
    expect(body.progress).toEqual({ done: 9, total: 9, pct: 100 })
    expect(body.trials.items.map((t: any) => t.trial)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    const combos = body.trials.items.map((t: any) => `${t.params.sl_pct}/${t.params.tp_pct}`).sort()
    expect(combos).toEqual(['2/2', '2/4', '2/6', '4/2', '4/4', '4/6', '6/2', '6/4', '6/6'])
    for (const t of body.trials.items) {
      expect(t.total_trades).toBe(t.metrics.total_trades)
      expect(t.request_hash).toMatch(/^[0-9a-f]{64}$/)
      for (const k of ['win_rate', 'profit_factor', 'sharpe_ratio', 'sortino_ratio', 'calmar_ratio', 'max_drawdown_pct', 'expectancy', 'total_return_pct_portfolio']) expect(typeof t.metrics[k]).toBe('number')
      expect(t.objective_value).toBe(t.total_trades >= 1 ? t.metrics.total_return_pct : null)
    }
    expect(new Set(body.trials.items.map((t: any) => t.request_hash)).size).toBe(9)
  })

  test('each trial is the run it stands for: the same figures as /simulate with those exits', async () => {
    for (const t of body.trials.items.slice(0, 3)) {
      const run = await h.req('/simulate', { method: 'POST', json: { ...BASE, sl_pct: t.params.sl_pct, tp_pct: t.params.tp_pct } })
      expect(run.status).toBe(200)
      for (const k of ['total_trades', 'total_return_pct', 'sharpe_ratio', 'max_drawdown_pct', 'profit_factor']) expect([k, t.metrics[k]]).toEqual([k, run.body[k]])
    }
  })

  test('best is the trial with the highest objective; the deflated Sharpe is of that trial with n_trials = the ledger’s size', () => {
    const top = Math.max(...body.trials.items.map((t: any) => t.objective_value ?? -Infinity))
    expect(body.best.objective_value).toBe(top)
    expect(body.deflated_sharpe.trial).toBe(body.best.trial)
    expect(body.deflated_sharpe.n_trials).toBe(body.n_trials)
    expect(body.deflated_sharpe.dsr).toBeGreaterThanOrEqual(0)
    expect(body.deflated_sharpe.dsr).toBeLessThanOrEqual(1)
    expect(body.deflated_sharpe.significant).toBe(body.deflated_sharpe.dsr >= 0.95)
  })

  test('PBO by CSCV over the 9 trials in 4 blocks (6 splits), and the best trial’s neighbourhood on the grid', () => {
    expect(body.pbo).toMatchObject({ method: 'cscv', blocks: 4, combinations: 6, trials: 9, performance: 'sharpe_ratio' })
    expect(body.pbo.pbo * 6).toBeCloseTo(Math.round(body.pbo.pbo * 6), 9)
    const at = (v: number, list: number[]) => list.indexOf(v)
    const b = body.best.params
    const expected = body.trials.items.filter(
      (t: any) => t.trial !== body.best.trial && Math.abs(at(t.params.sl_pct, [2, 4, 6]) - at(b.sl_pct, [2, 4, 6])) <= 1 && Math.abs(at(t.params.tp_pct, [2, 4, 6]) - at(b.tp_pct, [2, 4, 6])) <= 1,
    )
    expect(body.stability.neighbours).toBe(expected.length)
  })

  test('the ledger is paged, in trial order or best first (trials without a value last)', async () => {
    const page = await h.req(`/research/sweeps/${r.body.id}?offset=2&limit=3`)
    expect(page.body.trials).toMatchObject({ offset: 2, limit: 3, total: 9, sort: 'trial' })
    expect(page.body.trials.items.map((t: any) => t.trial)).toEqual([2, 3, 4])
    const best = await h.req(`/research/sweeps/${r.body.id}?sort=objective&limit=9`)
    const values = best.body.trials.items.map((t: any) => t.objective_value)
    expect(values).toEqual([...values].sort((x: number | null, y: number | null) => (y ?? -Infinity) - (x ?? -Infinity)))
    expect(best.body.trials.items[0].trial).toBe(body.best.trial)
  })

  test('its event stream replays each finished trial (id = its number), then the progress and the final state, and ends', async () => {
    const res = await h.app.handle(new Request(`http://localhost/research/sweeps/${r.body.id}/events`))
    expect(res.headers.get('content-type')).toContain('text/event-stream')
    const text = await res.text()
    const trials = [...text.matchAll(/id: (\d+)\nevent: trial\ndata: (.*)\n/g)]
    expect(trials.map(m => Number(m[1]))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(JSON.parse(trials[4][2])).toEqual(body.trials.items[4])
    expect(text).toContain('event: progress\ndata: {"done":9,"total":9}\n')
    expect(text.trim().endsWith('event: state\ndata: {"state":"done","reason":null}')).toBe(true)
    // Last-Event-ID: only the trials after it
    const resumed = await (await h.app.handle(new Request(`http://localhost/research/sweeps/${r.body.id}/events`, { headers: { 'last-event-id': '6' } }))).text()
    expect([...resumed.matchAll(/id: (\d+)\nevent: trial/g)].map(m => Number(m[1]))).toEqual([7, 8])
  })

  test('DELETE of a stopped sweep answers it as it is', async () => {
    const del = await h.req(`/research/sweeps/${r.body.id}`, { method: 'DELETE' })
    expect(del.status).toBe(200)
    expect(del.body.state).toBe('done')
    expect(del.body.n_trials).toBe(9)
  })
})

describe('spaces over the strategy itself', () => {
  test('a numeric leaf of a custom tree by its path, and an indicator parameter: each trial runs its own tree', async () => {
    const r = await h.req('/research/sweeps', {
      method: 'POST',
      json: {
        name: 'RSI dip',
        direction: 'long',
        indicators: { rsi: {} },
        entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
        top_n: 3,
        space: [
          { path: 'entry.conditions[0].value', name: 'rsi_below', values: [25, 35] },
          { path: 'indicators.rsi.period', values: [7, 14] },
        ],
        min_trades: 0,
        pbo_blocks: 2,
      },
    })
    expect(r.status).toBe(202)
    const done = await settled(r.body.id)
    expect([done.body.state, done.body.reason]).toEqual(['done', null])
    const byParams = new Map(done.body.trials.items.map((t: any) => [`${t.params.rsi_below}/${t.params['indicators.rsi.period']}`, t]))
    expect([...byParams.keys()].sort()).toEqual(['25/14', '25/7', '35/14', '35/7'])
    // a looser threshold enters at least as often
    expect((byParams.get('35/14') as any).total_trades).toBeGreaterThanOrEqual((byParams.get('25/14') as any).total_trades)
    const run = await h.req('/backtest', {
      method: 'POST',
      json: { name: 'RSI dip', direction: 'long', indicators: { rsi: { period: 7 } }, entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 35 }] }, top_n: 3 },
    })
    expect((byParams.get('35/7') as any).metrics.total_return_pct).toBe(run.body.total_return_pct)
  })

  test('random: budget distinct combinations drawn with the seed, the same draw for the same seed', async () => {
    const space = [
      { path: 'sl_pct', min: 1, max: 10, step: 1 },
      { path: 'tp_pct', min: 1, max: 10, step: 1 },
    ]
    const a = await settled((await start({ space, method: 'random', seed: 5, budget: 6, min_trades: 0, pbo_blocks: 2 })).body.id)
    const b = await settled((await start({ space, method: 'random', seed: 5, budget: 6, min_trades: 0, pbo_blocks: 2 })).body.id)
    const draws = (x: any) => x.body.trials.items.map((t: any) => `${t.params.sl_pct}/${t.params.tp_pct}`).sort()
    expect(a.body.n_trials).toBe(6)
    expect(new Set(draws(a)).size).toBe(6)
    expect(draws(a)).toEqual(draws(b))
  })
})

describe('bad input: 422 naming the field and the rule', () => {
  const cases: [string, Record<string, unknown>, (string | number)[], string][] = [
    ['a path that names no numeric leaf', { space: [{ path: 'entry.conditions[0].field', values: [1] }] }, ['body', 'space', 0, 'path'], 'numeric leaf'],
    ['a path into nothing', { space: [{ path: 'entry.conditions[7].value', values: [1] }] }, ['body', 'space', 0, 'path'], 'numeric leaf'],
    ['a path that is no parameter', { space: [{ path: 'leverage', values: [1, 2] }] }, ['body', 'space', 0, 'path'], 'not a parameter'],
    ['an unknown indicator parameter', { space: [{ path: 'indicators.bb.nope', values: [1] }] }, ['body', 'space', 0, 'path'], "has no parameter 'nope'"],
    ['a zero step', { space: [{ path: 'sl_pct', min: 1, max: 5, step: 0 }] }, ['body', 'space', 0, 'step'], 'greater than 0'],
    ['a negative step', { space: [{ path: 'sl_pct', min: 1, max: 5, step: -1 }] }, ['body', 'space', 0, 'step'], 'greater than 0'],
    ['a value out of the setting’s range', { space: [{ path: 'sl_pct', values: [2, 80] }] }, ['body', 'space', 0, 'values', 1], 'between 0.5 and 50'],
    ['a timeframe that is none', { space: [{ path: 'timeframe', values: ['1H', '3H'] }] }, ['body', 'space', 0, 'values', 1], 'not a timeframe'],
    ['values and a range', { space: [{ path: 'sl_pct', values: [1], min: 1, max: 2, step: 1 }] }, ['body', 'space', 0], 'not both'],
    [
      'a space larger than the limit',
      { space: [{ path: 'sl_pct', min: 1, max: 50, step: 1 }, { path: 'tp_pct', min: 1, max: 50, step: 1 }] },
      ['body', 'space'],
      'at most 2000 trials',
    ],
    ['a budget beyond the space', { space: [{ path: 'sl_pct', values: [1, 2] }], method: 'random', budget: 3 }, ['body', 'budget'], 'cannot draw distinct'],
    ['random without a budget', { space: [{ path: 'sl_pct', values: [1, 2] }], method: 'random' }, ['body', 'budget'], 'needs a budget'],
    ['an odd number of blocks', { space: [{ path: 'sl_pct', values: [1, 2] }], pbo_blocks: 5 }, ['body', 'pbo_blocks'], 'even'],
    ['both a registry strategy and a tree', { space: [{ path: 'sl_pct', values: [1, 2] }], entry: { field: 'rsi', op: '<', value: 30 } }, ['body'], 'not both'],
  ]
  for (const [what, json, loc, words] of cases)
    test(what, async () => {
      const r = await start(json)
      expect(r.status).toBe(422)
      const d = r.body.detail.find((x: any) => JSON.stringify(x.loc) === JSON.stringify(loc))
      expect(d ?? r.body.detail).toBeDefined()
      expect(d.msg).toContain(words)
    })

  test('an objective that is not a metric (or one where lower is better)', async () => {
    const r = await start({ space: EXIT_SPACE, objective: 'max_drawdown_pct' })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'objective'])
  })

  test('an unknown registry strategy is a 404, an unknown symbol too', async () => {
    expect((await start({ strategy: 'no-such', space: EXIT_SPACE })).status).toBe(404)
    expect((await h.req('/research/sweeps', { method: 'POST', json: { strategy: 'bb-squeeze-short', symbols: ['NOPEUSDT'], space: EXIT_SPACE } })).status).toBe(404)
  })

  test('an unknown sweep id is a 404 on every read', async () => {
    for (const [path, method] of [['/research/sweeps/sw-nope', 'GET'], ['/research/sweeps/sw-nope', 'DELETE'], ['/research/sweeps/sw-nope/events', 'GET']]) expect((await h.req(path, { method })).status).toBe(404)
  })
})

describe('cancel and limits (on a worker)', async () => {
  const p = makeHarness({ fill, workers: 1 })
  afterAll(() => p.cleanup())
  const BIG = [
    { path: 'sl_pct', min: 1, max: 20, step: 1 },
    { path: 'tp_pct', min: 1, max: 10, step: 1 },
  ]

  test('DELETE stops a running sweep: cancelled, the reason says so, the finished trials are kept and counted in n_trials', async () => {
    const r = await start({ space: BIG, min_trades: 0, pbo_blocks: 4 }, p)
    expect(r.status).toBe(202)
    for (let i = 0; i < 2000; i++) {
      const g = await p.req(`/research/sweeps/${r.body.id}?limit=0`)
      if (g.body.n_trials >= 4) break
      await Bun.sleep(5)
    }
    const del = await p.req(`/research/sweeps/${r.body.id}`, { method: 'DELETE' })
    expect(del.status).toBe(200)
    expect(del.body.state).toBe('cancelled')
    expect(del.body.reason).toMatch(/^cancelled: DELETE at .*the trials finished before it are kept$/)
    expect(del.body.n_trials).toBeGreaterThanOrEqual(4)
    expect(del.body.n_trials).toBeLessThan(200)
    expect(del.body.progress.done).toBe(del.body.n_trials)
    expect(del.body.trials.total).toBe(del.body.n_trials)
    if (del.body.deflated_sharpe) expect(del.body.deflated_sharpe.n_trials).toBe(del.body.n_trials)
    // nothing more is written after it
    await Bun.sleep(50)
    expect((await p.req(`/research/sweeps/${r.body.id}?limit=0`)).body.n_trials).toBe(del.body.n_trials)
  })

  test('a third sweep of the same client while two run: 429 with Retry-After; another client still starts one', async () => {
    const mk = (ip: string) => start({ space: BIG, min_trades: 0 }, p, { 'x-forwarded-for': ip })
    const [a, b, c] = await Promise.all([mk('10.0.0.1'), mk('10.0.0.1'), mk('10.0.0.1')])
    // the harness trusts no proxy: every request is the same local client
    const statuses = [a.status, b.status, c.status].sort()
    expect(statuses).toEqual([202, 202, 429])
    const refused = [a, b, c].find(x => x.status === 429)!
    expect(refused.body).toMatchObject({ limit: 2 })
    expect(refused.body.detail).toContain('at most 2 sweeps or walk-forward runs queued or running per client')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    for (const x of [a, b, c].filter(x => x.status === 202)) await p.req(`/research/sweeps/${x.body.id}`, { method: 'DELETE' })
  })
})

describe('stored runs', () => {
  test('a run left running by a process that stopped reads "failed: interrupted" after the next start; its trials stay', async () => {
    const db = openDb(':memory:')
    const clock = new ManualClock(Date.UTC(2026, 0, 1))
    await insertResearchRun(db, { id: 'sw-old', kind: 'sweep', client: 'x', request: {}, planned: 10, owner: 'gone-process', nowMs: clock.now() })
    await appendTrials(db, 'sw-old', [{ trial: 0, fold: null, params: { sl_pct: 2 }, metrics: { total_trades: 3 }, totalTrades: 3, objectiveValue: 1, requestHash: 'h' }], 1, clock.now())
    const runner = new ResearchRunner({ db, clock })
    await runner.settled('none')
    // the start-up sweep of interrupted runs finishes before the first start is taken
    await Bun.sleep(5)
    const row = (await researchRun(db, 'sw-old'))!
    expect(row.state).toBe('failed')
    expect(row.reason).toBe('failed: interrupted (the service stopped while it ran)')
    expect(row.finished).toBe(1)
  })

  test('a server that stops fails its running runs as interrupted (what the next start would say), keeping what finished', async () => {
    const db = openDb(':memory:')
    const clock = new ManualClock(Date.UTC(2026, 0, 1))
    const shutdown = new AbortController()
    const runner = new ResearchRunner({ db, clock, shutdown: shutdown.signal })
    const id = await runner.start('sweep', 'x', {}, 10, async ctx => {
      await appendTrials(db, ctx.id, [{ trial: 0, fold: null, params: { sl_pct: 2 }, metrics: { total_trades: 1 }, totalTrades: 1, objectiveValue: 1, requestHash: 'h' }], 1, clock.now())
      await new Promise(resolve => ctx.signal.addEventListener('abort', resolve))
      return { pbo: null }
    })
    await Bun.sleep(10)
    shutdown.abort()
    await runner.settled(id)
    const row = (await researchRun(db, id))!
    expect([row.state, row.reason, row.finished]).toEqual(['failed', 'failed: interrupted (the service stopped while it ran)', 1])
  })

  test('the ledger is append-only and a stopped run is never changed or removed (the database refuses)', async () => {
    const db = openDb(':memory:')
    await insertResearchRun(db, { id: 'sw-a', kind: 'sweep', client: 'x', request: {}, planned: 1, owner: 'me', nowMs: 1 })
    await appendTrials(db, 'sw-a', [{ trial: 0, fold: null, params: {}, metrics: {}, totalTrades: 0, objectiveValue: null, requestHash: 'h' }], 1, 1)
    await expect(db.rows(sql.raw("UPDATE research_trials SET total_trades = 5"))).rejects.toThrow(/append-only/)
    await expect(db.rows(sql.raw('DELETE FROM research_trials'))).rejects.toThrow(/append-only/)
    expect(await stopRun(db, 'sw-a', { state: 'done', reason: null, result: { pbo: null }, nowMs: 2 })).toBe(true)
    await expect(db.rows(sql.raw("UPDATE research_runs SET state = 'running'"))).rejects.toThrow(/stopped run is never changed/)
    await expect(db.rows(sql.raw('DELETE FROM research_runs'))).rejects.toThrow(/never removed/)
    // stopping twice changes nothing
    expect(await stopRun(db, 'sw-a', { state: 'failed', reason: 'x', result: null, nowMs: 3 })).toBe(false)
  })
})
