import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { simulateDca } from '../src/engine/bots/dca'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const START = Date.UTC(2024, 0, 1)
const h = makeHarness({ fill: s => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT'], START, 30, 7) })
afterAll(() => h.cleanup())

const post = (path: string, json: unknown) => h.req(path, { method: 'POST', json })
const locs = (body: any) => (body.detail as any[]).map(d => d.loc.join('.'))

describe('POST /simulate/dca', () => {
  test('empty params resolve to the documented defaults, and the figures add up', async () => {
    const r = await post('/simulate/dca', { symbol: 'BTCUSDT' })
    expect(r.status).toBe(200)
    const b = r.body
    expect(b.params).toEqual({ direction: 'long', base_order_usdt: 100, safety_order_usdt: 100, max_safety_orders: 5, price_deviation_pct: 1, safety_step_scale: 1, safety_volume_scale: 1, take_profit_pct: 1.5, stop_loss_pct: null, leverage: 1, cooldown_bars: 0 })
    expect(b.taker_fee_pct).toBe(0.05)
    expect(b.candles).toBe(720)
    expect(b.data_range).toBe('2024-01-01T00:00:00Z to 2024-01-31T00:00:00Z')
    expect(b.max_capital_required_usdt).toBe(600)
    expect(b.deals.length).toBeGreaterThan(0)
    const sum = (f: (d: any) => number) => b.deals.reduce((s: number, d: any) => s + f(d), 0)
    expect(b.total_pnl_usdt).toBeCloseTo(sum(d => d.net_pnl_usdt), 9)
    expect(b.fees_usdt).toBeCloseTo(sum(d => d.fees_usdt), 9)
    expect(b.roi_pct).toBeCloseTo((b.total_pnl_usdt / 600) * 100, 9)
    expect(b.deals_closed).toBe(b.deals.filter((d: any) => d.exit_reason !== 'end').length)
    expect(b.equity_curve.at(-1).equity_usdt).toBeCloseTo(600 + b.total_pnl_usdt, 9)
    // the stand-in funding (no real series in this store): coverage 0
    expect(b.funding_coverage).toBe(0)
  })

  test('the route runs the engine on the stored candles of the window', async () => {
    const r = await post('/simulate/dca', { symbol: 'ETHUSDT', start: '2024-01-03', end: '2024-01-10T12:00:00Z', params: { max_safety_orders: 3, take_profit_pct: 2 }, taker_fee_pct: 0.04 })
    expect(r.status).toBe(200)
    const bars = h.deps.store.bars('ETHUSDT')!
    const fromIdx = 48
    const lastIdx = 9 * 24 + 12
    expect(r.body.candles).toBe(lastIdx - fromIdx + 1)
    const e = simulateDca({ bars, funding: null, fromIdx, lastIdx }, { direction: 'long', baseOrderUsdt: 100, safetyOrderUsdt: 100, maxSafetyOrders: 3, priceDeviationPct: 1, safetyStepScale: 1, safetyVolumeScale: 1, takeProfitPct: 2, stopLossPct: null, leverage: 1, cooldownBars: 0, feeFrac: 0.0004, mmrFrac: 0.005 })
    expect(r.body.deals.map((d: any) => d.net_pnl_usdt)).toEqual(e.deals.map(d => d.netPnlUsdt))
  })

  test('a params key out of its range is 422 with the key in loc and the rule in msg', async () => {
    const r = await post('/simulate/dca', { symbol: 'BTCUSDT', params: { max_safety_orders: 51, leverage: 0, direction: 'up' } })
    expect(r.status).toBe(422)
    expect(locs(r.body).sort()).toEqual(['body.params.direction', 'body.params.leverage', 'body.params.max_safety_orders'])
    const m = r.body.detail.find((d: any) => d.loc[2] === 'max_safety_orders')
    expect(m.msg).toBe('must be an integer from 0 to 50')
    expect(m.input).toBe(51)
  })

  test('an unknown params key is 422 naming it', async () => {
    const r = await post('/simulate/dca', { symbol: 'BTCUSDT', params: { take_profit: 2 } })
    expect(r.status).toBe(422)
    expect(locs(r.body)).toEqual(['body.params.take_profit'])
    expect(r.body.detail[0].msg).toContain("unknown key 'take_profit'")
  })

  test('a fractional integer and a numeric string are refused, not coerced', async () => {
    const r = await post('/simulate/dca', { symbol: 'BTCUSDT', params: { cooldown_bars: 1.5, leverage: '5' } })
    expect(r.status).toBe(422)
    expect(locs(r.body).sort()).toEqual(['body.params.cooldown_bars', 'body.params.leverage'])
  })

  test('symbol shorter than 5 or longer than 16 characters is 422; an unknown symbol is 404', async () => {
    expect(locs((await post('/simulate/dca', { symbol: 'BTCU' })).body)).toContain('body.symbol')
    expect((await post('/simulate/dca', { symbol: 'ABCDEFGHIJKLUSDT1' })).status).toBe(422)
    const r = await post('/simulate/dca', { symbol: 'NOPEUSDT' })
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('NOPEUSDT')
  })

  test('end before start is 422 on end; a window with fewer than 2 candles is 422 naming the window', async () => {
    const r = await post('/simulate/dca', { symbol: 'BTCUSDT', start: '2024-01-05', end: '2024-01-04' })
    expect(r.status).toBe(422)
    expect(locs(r.body)).toEqual(['body.end'])
    const one = await post('/simulate/dca', { symbol: 'BTCUSDT', start: '2024-01-05T03:00:00Z', end: '2024-01-05T03:00:00Z' })
    expect(one.status).toBe(422)
    expect(one.body.detail[0].msg).toContain('2024-01-05T03:00:00Z … 2024-01-05T03:00:00Z holds 1 1H candle')
    const none = await post('/simulate/dca', { symbol: 'BTCUSDT', start: '2025-01-01' })
    expect(none.status).toBe(422)
    expect(none.body.detail[0].msg).toContain('holds 0 1H candles')
  })

  test('taker_fee_pct outside 0–1 is 422; a malformed date is 422', async () => {
    expect(locs((await post('/simulate/dca', { symbol: 'BTCUSDT', taker_fee_pct: 1.5 })).body)).toContain('body.taker_fee_pct')
    expect((await post('/simulate/dca', { symbol: 'BTCUSDT', start: '2024-02-30' })).status).toBe(422)
  })
})

describe('POST /simulate/grid', () => {
  test('answers accuracy approx with the note, the levels and figures that add up', async () => {
    const bars = h.deps.store.bars('BTCUSDT')!
    const r = await post('/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 80, upper_price: 120, grid_count: 40, direction: 'long' } })
    expect(r.status).toBe(200)
    const b = r.body
    expect(b.accuracy).toBe('approx')
    expect(b.accuracy_note).toContain('inside each hour')
    expect(b.levels).toHaveLength(41)
    expect(b.params.spacing).toBe('arithmetic')
    expect(b.start_price).toBe(bars.o[0])
    expect(b.fills).toBe(b.buys + b.sells)
    expect(b.total_pnl_usdt).toBeCloseTo(b.grid_profit_usdt + b.closeout_pnl_usdt + b.floating_pnl_usdt - b.funding_usdt, 9)
    expect(b.total_return_pct).toBeCloseTo(b.total_pnl_usdt / 10, 9)
    expect(b.equity_curve.at(-1).equity_usdt).toBeCloseTo(1000 + b.total_pnl_usdt, 9)
  })

  test('lower_price and upper_price are required; upper at or below lower is 422 on upper_price', async () => {
    const r = await post('/simulate/grid', { symbol: 'BTCUSDT', params: {} })
    expect(r.status).toBe(422)
    expect(locs(r.body).sort()).toEqual(['body.params.lower_price', 'body.params.upper_price'])
    const x = await post('/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 100, upper_price: 100 } })
    expect(locs(x.body)).toEqual(['body.params.upper_price'])
    const zero = await post('/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 0, upper_price: 100 } })
    expect(locs(zero.body)).toEqual(['body.params.lower_price'])
    expect(zero.body.detail[0].msg).toBe('must be a number from 1e-9 to 1000000000')
  })

  test('grid_count outside 2–200, leverage above 20 and unknown keys are 422 naming each', async () => {
    const r = await post('/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 80, upper_price: 120, grid_count: 201, leverage: 21, grids: 5 } })
    expect(r.status).toBe(422)
    expect(locs(r.body).sort()).toEqual(['body.params.grid_count', 'body.params.grids', 'body.params.leverage'])
  })

  test('/simulate/dca and /simulate/grid are described in /openapi.json (public simulations); /generate-bot stays out', async () => {
    const doc = (await h.req('/openapi.json')).body
    const paths = Object.keys(doc.paths)
    expect(paths.filter(p => p.startsWith('/simulate/dca') || p.startsWith('/simulate/grid') || p === '/generate-bot')).toEqual(['/simulate/dca', '/simulate/grid'])
    const grid = doc.paths['/simulate/grid'].post
    expect(grid.requestBody.content['application/json'].schema.required).toEqual(['symbol', 'params'])
    expect(grid.requestBody.content['application/json'].schema.properties.params.properties.grid_count).toMatchObject({ type: 'integer', default: 20, minimum: 2, maximum: 200 })
    expect(Object.keys(grid.responses).sort()).toEqual(['200', '404', '422', '429', '503'])
  })
})

describe('on the worker pool', () => {
  test('the bots run as worker tasks and answer exactly as in-process', async () => {
    const pooled = makeHarness({ fill: s => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT'], START, 30, 7), workers: 1 })
    try {
      for (const [path, body] of [
        ['/simulate/dca', { symbol: 'ETHUSDT', params: { max_safety_orders: 4, leverage: 3 } }],
        ['/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 80, upper_price: 120, grid_count: 50 } }],
      ] as const) {
        const a = await pooled.req(path, { method: 'POST', json: body })
        const b = await post(path, body)
        expect(a.status).toBe(200)
        expect(a.body).toEqual(b.body)
      }
    } finally {
      pooled.cleanup()
    }
  }, 60_000)
})

describe('any settings inside the ranges', () => {
  const rangeEnds = <T>(lo: T, hi: T, mid: fc.Arbitrary<T>) => fc.oneof(fc.constant(lo), fc.constant(hi), mid)

  test('DCA: 200, never a 500, whatever the values within the documented ranges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          direction: fc.constantFrom('long', 'short'),
          base_order_usdt: rangeEnds(1, 1_000_000, fc.double({ min: 1, max: 1_000_000, noNaN: true })),
          safety_order_usdt: rangeEnds(1, 1_000_000, fc.double({ min: 1, max: 1_000_000, noNaN: true })),
          max_safety_orders: fc.integer({ min: 0, max: 50 }),
          price_deviation_pct: rangeEnds(0.1, 50, fc.double({ min: 0.1, max: 50, noNaN: true })),
          safety_step_scale: rangeEnds(0.1, 10, fc.double({ min: 0.1, max: 10, noNaN: true })),
          safety_volume_scale: rangeEnds(0.1, 10, fc.double({ min: 0.1, max: 10, noNaN: true })),
          take_profit_pct: rangeEnds(0.1, 100, fc.double({ min: 0.1, max: 100, noNaN: true })),
          stop_loss_pct: fc.oneof(fc.constant(null), rangeEnds(0.1, 99, fc.double({ min: 0.1, max: 99, noNaN: true }))),
          leverage: fc.integer({ min: 1, max: 125 }),
          cooldown_bars: fc.integer({ min: 0, max: 720 }),
        }),
        fc.constantFrom(0, 1, null),
        async (params, fee) => {
          const r = await post('/simulate/dca', { symbol: 'ETHUSDT', params, taker_fee_pct: fee, start: '2024-01-20' })
          expect(r.status).toBe(200)
          expect(Number.isFinite(r.body.total_pnl_usdt)).toBe(true)
        },
      ),
      { numRuns: 40 },
    )
  }, 60_000)

  test('grid: 200, never a 500, whatever the values within the documented ranges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 1e-9, max: 1e9, noNaN: true }),
        fc.double({ min: 1.0001, max: 1e6, noNaN: true }),
        fc.record({
          grid_count: fc.integer({ min: 2, max: 200 }),
          spacing: fc.constantFrom('arithmetic', 'geometric'),
          investment_usdt: rangeEnds(10, 10_000_000, fc.double({ min: 10, max: 10_000_000, noNaN: true })),
          leverage: fc.integer({ min: 1, max: 20 }),
          direction: fc.constantFrom('long', 'short', 'neutral'),
          stop_loss_price: fc.oneof(fc.constant(null), fc.double({ min: 1e-9, max: 1e9, noNaN: true })),
          take_profit_price: fc.oneof(fc.constant(null), fc.double({ min: 1e-9, max: 1e9, noNaN: true })),
        }),
        async (lower, ratio, rest) => {
          const upper = Math.min(1e9, lower * ratio)
          if (!(upper > lower)) return
          const r = await post('/simulate/grid', { symbol: 'ETHUSDT', params: { lower_price: lower, upper_price: upper, ...rest }, start: '2024-01-20' })
          expect(r.status).toBe(200)
          expect(Number.isFinite(r.body.total_pnl_usdt)).toBe(true)
        },
      ),
      { numRuns: 40 },
    )
  }, 60_000)
})
