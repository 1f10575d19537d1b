/**
 * POST /research/walk-forward (docs/api-research.md, "Walk-forward"): a planted regime change
 * that the folds' choices follow (and that costs the fold whose out-of-sample part it falls
 * in), the truncation test (a fold's choice is the same whatever the data after its
 * in-sample part holds), the stitched out-of-sample run, and the 422 of folds longer than
 * the data.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import type { CandleStore } from '../src/market/candle-store'
import { fillWalkUniverse, makeHarness, walkCandles, type Harness } from './helpers/harness'
import { addCoins, DAY, T0, type Bar } from './research-fixtures'

async function stopped(h: Harness, id: string) {
  for (let i = 0; i < 4000; i++) {
    const r = await h.req(`/research/walk-forward/${id}`)
    if (!['queued', 'running'].includes(r.body.state)) return r
    await Bun.sleep(5)
  }
  throw new Error('walk-forward did not stop')
}

/**
 * 4-day patterns: bar 0 a small bullish candle (the signal), bars 1–24 each open one gap
 * from the previous close, the rest flat. Regime A: 12 gaps up then 12 down (a long held
 * 12 bars sells the top, one held 24 gives it back); regime B: 12 down then 12 up (12 bars
 * sells the bottom, 24 gets back to the start). The regime turns on `changeDay`.
 */
function regimes(days: number, changeDay: number, start: number, gap = 1.003): Bar[] {
  const out: Bar[] = []
  let p = start
  for (let d = 0; d < days; d += 4) {
    const a = d < changeDay
    out.push([p, p * 1.0001])
    p *= 1.0001
    for (let i = 1; i < 96; i++) {
      if (i <= 12) p = a ? p * gap : p / gap
      else if (i <= 24) p = a ? p / gap : p * gap
      out.push([p, p])
    }
  }
  return out
}

const BULLISH_LONG = {
  name: 'bullish bar',
  direction: 'long',
  indicators: { candle: {} },
  entry: { type: 'AND', conditions: [{ field: 'is_bullish', op: '==', value: true }] },
  sl_pct: 50,
  tp_pct: 100,
}

describe('a planted regime change', async () => {
  const h = makeHarness({ fill: (s: CandleStore) => addCoins(s, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'].map((symbol, k) => ({ symbol, bars: regimes(120, 60, 100 + 50 * k) }))) })
  afterAll(() => h.cleanup())
  const r = await h.req('/research/walk-forward', {
    method: 'POST',
    json: {
      ...BULLISH_LONG,
      top_n: 3,
      space: [{ path: 'max_bars', values: [12, 24] }],
      objective: 'total_return_pct',
      min_trades: 1,
      mode: 'rolling',
      in_sample_days: 20,
      out_of_sample_days: 8,
      folds: 10,
    },
  })
  const done = await stopped(h, r.body.id)
  const folds = done.body.folds as any[]

  test('answers 202 with the id; done with every fold', () => {
    expect(r.status).toBe(202)
    expect(r.body.id).toMatch(/^wf-/)
    expect(r.body.links).toEqual({ self: `/research/walk-forward/${r.body.id}`, events: `/research/walk-forward/${r.body.id}/events` })
    expect([done.body.state, done.body.reason]).toEqual(['done', null])
    expect(folds.length).toBe(10)
    expect(done.body.n_trials).toBe(20)
    expect(folds.map(f => [f.in_sample.start_date, f.out_of_sample.start_date])[0]).toEqual(['2025-01-01', '2025-01-21'])
  })

  test('before the change every fold picks 12 bars, after it 24: the choice follows the regime', () => {
    expect(folds.slice(0, 6).map(f => f.params.max_bars)).toEqual([12, 12, 12, 12, 12, 12])
    expect(folds.slice(8).map(f => f.params.max_bars)).toEqual([24, 24])
    expect(done.body.parameter_stability.by_parameter.max_bars.distinct).toBe(2)
    expect(done.body.parameter_stability.score).toBe(0)
  })

  test('out of sample: the old choice gains before the change and loses in the fold the change falls in', () => {
    for (const f of folds.slice(0, 5)) expect(f.out_of_sample.objective_value).toBeGreaterThan(0)
    // fold 6: in-sample days 40–59 (regime A) chose 12; its out-of-sample days 60–67 are regime B
    expect(folds[5].out_of_sample.start_date).toBe('2025-03-02')
    expect(folds[5].out_of_sample.objective_value).toBeLessThan(-5)
    expect(folds[5].in_sample.objective_value).toBeGreaterThan(5)
  })

  test('the stitched out-of-sample run: every fold’s trades in one portfolio, with every /backtest statistic and the folds’ trial count', () => {
    const oos = done.body.out_of_sample
    const perFold = folds.reduce((n, f) => n + (f.out_of_sample.metrics?.total_trades ?? 0), 0)
    expect(oos.total_trades).toBe(perFold)
    expect(oos.data_range).toBe(`2025-01-21 to ${folds[9].out_of_sample.end_date}`)
    expect(oos.deflated_sharpe_info?.n_trials ?? done.body.n_trials).toBe(done.body.n_trials)
    expect(typeof oos.sharpe_ratio).toBe('number')
    expect(oos.equity_curve.length).toBeGreaterThan(70)
    expect(oos.result_hash).toBeNull()
    const summed = folds.reduce((s, f) => s + (f.out_of_sample.metrics?.total_return_pct ?? 0), 0)
    expect(oos.total_return_pct).toBeCloseTo(summed, 9)
  })

  test('each fold carries its chosen trial’s in-sample curve, day by day over the in-sample part, ending at its total return', () => {
    for (const f of folds) {
      expect(f.in_sample.equity_curve.length).toBe(20)
      expect(f.in_sample.equity_curve[0].t).toBe(f.in_sample.start_date)
      expect(f.in_sample.equity_curve.at(-1).t).toBe(f.in_sample.end_date)
      expect(f.in_sample.equity_curve.at(-1).return_pct).toBeCloseTo(f.in_sample.metrics.total_return_pct_portfolio, 4)
    }
  })

  test('its event stream replays the ledger’s in-sample trials and ends with the state', async () => {
    const text = await (await h.app.handle(new Request(`http://localhost/research/walk-forward/${r.body.id}/events`))).text()
    expect([...text.matchAll(/id: (\d+)\nevent: trial/g)].length).toBe(20)
    expect(text.trim().endsWith('event: state\ndata: {"state":"done","reason":null}')).toBe(true)
    expect((await h.req(`/research/walk-forward/${r.body.id}/events`.replace('wf-', 'sw-'))).status).toBe(404)
  })

  test('walk_forward_efficiency: mean out-of-sample objective per day over mean in-sample objective per day', () => {
    const pairs = folds.map(f => [f.in_sample.objective_value / 20, f.out_of_sample.objective_value / 8])
    const is = pairs.reduce((s, p) => s + p[0], 0) / pairs.length
    const oos = pairs.reduce((s, p) => s + p[1], 0) / pairs.length
    expect(done.body.walk_forward_efficiency).toBeCloseTo(oos / is, 9)
  })
})

describe('the truncation test: no out-of-sample information reaches a fold’s choice', async () => {
  const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT']
  const DAYS = 90
  const body = {
    name: 'RSI dip',
    direction: 'long',
    indicators: { rsi: {} },
    entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] },
    max_bars: 12,
    top_n: 4,
    space: [
      { path: 'sl_pct', values: [1, 2, 4] },
      { path: 'entry.conditions[0].value', values: [25, 35] },
      { path: 'indicators.rsi.period', values: [7, 14] },
    ],
    objective: 'sharpe_ratio',
    min_trades: 1,
    mode: 'anchored',
    in_sample_days: 30,
    out_of_sample_days: 15,
    folds: 3,
    purge_days: 1,
  }
  /** the walk candles, with every bar from `fromDay` on replaced by another walk (another future) */
  const fill = (fromDay: number | null) => (s: CandleStore) => {
    COINS.forEach((sym, k) => {
      const cols = walkCandles(DAYS * 24, T0, 40 + k)
      if (fromDay !== null) {
        const cut = fromDay * 24
        const other = walkCandles(DAYS * 24 - cut, T0 + cut * 3_600_000, 900 + k, cols[4][cut - 1] * 3)
        cols.forEach((col, j) => col.splice(cut, col.length - cut, ...other[j]))
      }
      s.appendCandles(sym, cols, cols[0].length)
    })
    s.upsertMeta(COINS.map((symbol, k) => ({ symbol, name: symbol, rank: k + 1, stablecoin: false, assetClass: 'crypto' as const, listingMs: T0 })), 'binance-csv')
  }
  const run = async (fromDay: number | null) => {
    const h = makeHarness({ fill: fill(fromDay) })
    try {
      const r = await h.req('/research/walk-forward', { method: 'POST', json: body })
      expect(r.status).toBe(202)
      return (await stopped(h, r.body.id)).body
    } finally {
      h.cleanup()
    }
  }
  const full = await run(null)

  test('each fold’s choice and in-sample figures are the same when every day after its in-sample part is another market', async () => {
    expect(full.state).toBe('done')
    for (const f of full.folds) expect(f.out_of_sample.metrics.total_trades).toBeGreaterThan(0)
    expect(full.folds.length).toBe(3)
    for (let k = 0; k < 3; k++) {
      // the first day after fold k's in-sample part: day 30 + 15k
      const other = await run(30 + 15 * k)
      expect(other.state).toBe('done')
      expect(other.folds[k].params).toEqual(full.folds[k].params)
      expect(other.folds[k].in_sample).toEqual(full.folds[k].in_sample)
      // and the control: what follows did change (else the test could not fail)
      expect(other.folds[k].out_of_sample.metrics).not.toEqual(full.folds[k].out_of_sample.metrics)
    }
  })
})

describe('bad input', () => {
  const h = makeHarness({ fill: (s: CandleStore) => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT'], T0, 60, 3) })
  afterAll(() => h.cleanup())
  const post = (json: Record<string, unknown>) =>
    h.req('/research/walk-forward', { method: 'POST', json: { strategy: 'bb-squeeze-short', top_n: 2, space: [{ path: 'sl_pct', values: [1, 2] }], in_sample_days: 30, out_of_sample_days: 10, folds: 3, ...json } })

  test('folds longer than the data: 422 naming folds, the days needed and the days there are', async () => {
    const r = await post({ purge_days: 1 })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'folds'])
    expect(r.body.detail[0].msg).toBe('the folds need 61 days (in_sample_days + purge_days + folds × out_of_sample_days); the data has 60 days (2025-01-01 to 2025-03-01)')
    expect((await post({})).status).toBe(202)
  })

  test('folds × trials past the limit', async () => {
    const r = await post({ space: [{ path: 'sl_pct', min: 1, max: 50, step: 0.5 }, { path: 'tp_pct', values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }], folds: 3, in_sample_days: 7, out_of_sample_days: 7 })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'folds'])
  })

  test('an unknown walk-forward id is a 404', async () => {
    expect((await h.req('/research/walk-forward/wf-nope')).status).toBe(404)
    expect(DAY).toBe(86_400_000)
  })
})
