/**
 * Leaves across coins, timeframes and derivatives data through POST /backtest: a timeframe
 * below the run's and a coin the store lacks are 422s naming the place; a run whose leaves
 * met absent data says on how many bars (condition_data_absent_bars and a warning); the
 * store's samples reach the workers (a pool of two) as they reach the calling thread.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { makeHarness, walkCandles } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const HOUR = 3_600_000
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const BARS = 24 * 60

function fill(store: any) {
  COINS.forEach((s, k) => {
    const cols = walkCandles(BARS, T0, k + 1, 100)
    store.appendCandles(s, cols, cols[0].length)
  })
  store.upsertMeta(COINS.map((s, k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: false, assetClass: 'crypto', listingMs: T0 })), 'binance-csv')
  // funding for BTCUSDT only, every 8 hours, alternating sign
  const n = BARS / 8
  store.appendFunding('BTCUSDT', Float64Array.from({ length: n }, (_, i) => T0 + i * 8 * HOUR), Float64Array.from({ length: n }, (_, i) => (i % 2 ? 0.0002 : -0.0001)), n)
  // open interest for SOLUSDT, hourly samples
  store.appendSamples('open_interest', 'SOLUSDT', Float64Array.from({ length: BARS }, (_, i) => T0 + i * HOUR), Float64Array.from({ length: BARS }, (_, i) => 1000 + (i % 24)), BARS)
}

for (const workers of [0, 2]) {
  describe(`POST /backtest with leaves across coins and data (${workers ? `${workers} workers` : 'in process'})`, () => {
    const h = makeHarness({ fill, workers: workers || undefined })
    afterAll(() => h.cleanup())

    test("a timeframe below the run's and an unknown symbol: 422 naming each place", async () => {
      const entry = {
        type: 'AND',
        conditions: [
          { field: 'close', timeframe: '1H', op: '>', value: 1 },
          { field: 'close', op: '>', value: { field: 'close', symbol: 'NOPEUSDT' } },
        ],
      }
      const r = await h.req('/backtest', { method: 'POST', json: { entry, indicators: {}, timeframe: '4H', symbols: ['ETHUSDT'] } })
      expect(r.status).toBe(422)
      expect(r.body.detail.map((d: any) => [d.loc, d.input])).toEqual([
        [['body', 'entry', 'conditions', 0, 'timeframe'], '1H'],
        [['body', 'entry', 'conditions', 1, 'value', 'symbol'], 'NOPEUSDT'],
      ])
      expect(r.body.detail[0].msg).toContain("lower than the run's 4H")
      expect(r.body.detail[1].msg).toContain("unknown symbol 'NOPEUSDT'")
    })

    test('BTC funding and a daily BTC field run on every coin; bars without data are counted', async () => {
      const entry = {
        type: 'AND',
        conditions: [
          { field: 'funding_rate', symbol: 'BTCUSDT', op: '>', value: 0 },
          { field: 'close', symbol: 'BTCUSDT', timeframe: '1D', op: '>', value: 0 },
        ],
      }
      const r = await h.req('/backtest', { method: 'POST', json: { entry, indicators: {}, symbols: ['ETHUSDT', 'SOLUSDT'], max_bars: 4 } })
      expect(r.status).toBe(200)
      expect(r.body.executed).toBe(true)
      expect(r.body.total_trades).toBeGreaterThan(10)
      // the first day has no completed daily bar: 23 bars of each coin (the bar closing at 24:00 sees day one)
      expect(r.body.condition_data_absent_bars).toBe(2 * 23)
      expect(r.body.warnings.some((w: string) => w.includes('absent on 46 bars of 2 coins'))).toBe(true)
    })

    test('own funding: a coin without any is false on every bar, and says so', async () => {
      const entry = { field: 'funding_rate', op: '<', value: 1 }
      const r = await h.req('/backtest', { method: 'POST', json: { entry, indicators: {}, symbols: ['BTCUSDT', 'ETHUSDT'], max_bars: 4 } })
      expect(r.status).toBe(200)
      expect(r.body.condition_data_absent_bars).toBe(BARS)
      expect(r.body.coin_results.find((c: any) => c.symbol === 'ETHUSDT')?.total_trades ?? 0).toBe(0)
      expect(r.body.total_trades).toBeGreaterThan(0)
    })

    test('open interest from the store reaches the leaves', async () => {
      const entry = { field: 'open_interest', op: '>', value: { field: 'open_interest', shift: 1 } }
      const r = await h.req('/backtest', { method: 'POST', json: { entry, indicators: {}, symbols: ['SOLUSDT'], max_bars: 1, direction: 'long' } })
      expect(r.status).toBe(200)
      expect(r.body.condition_data_absent_bars).toBe(0)
      expect(r.body.total_trades).toBeGreaterThan(20)
    })

    test('/openapi.json publishes the leaf keys in the one ConditionNode schema', async () => {
      const doc = (await h.req('/openapi.json')).body
      const leaf = doc.components.schemas.ConditionNode.oneOf.find((x: { title?: string }) => x.title === 'ConditionLeaf')
      expect(Object.keys(leaf.properties)).toEqual(expect.arrayContaining(['timeframe', 'symbol', 'events']))
      expect(leaf.properties.timeframe.anyOf.map((x: { const: string }) => x.const)).toEqual(['1H', '2H', '4H', '6H', '12H', '1D', '1W'])
      expect(leaf.properties.symbol.pattern).toBe('^[A-Z0-9]{1,24}USDT$')
      // the value's field reference takes them too
      expect(JSON.stringify(leaf.properties.value)).toContain('"timeframe"')
    })

    test("a sweep over timeframe that would fall below a leaf's timeframe: 422 naming the trial, nothing started", async () => {
      const entry = { field: 'close', timeframe: '4H', op: '>', value: { field: 'close', timeframe: '4H', shift: 1 } }
      const r = await h.req('/research/sweeps', { method: 'POST', json: { entry, indicators: {}, symbols: ['ETHUSDT'], space: [{ path: 'timeframe', values: ['1H', '4H', '1D'] }] } })
      expect(r.status).toBe(422)
      expect(r.body.detail).toHaveLength(1)
      expect(r.body.detail[0].loc).toEqual(['body', 'space'])
      expect(r.body.detail[0].msg).toContain('"timeframe":"1D"')
      expect(r.body.detail[0].msg).toContain("entry.timeframe: timeframe 4H is lower than the run's 1D")
      // the base's own timeframe, with the trials it gives
      const base = await h.req('/research/sweeps', { method: 'POST', json: { entry, indicators: {}, symbols: ['ETHUSDT'], timeframe: '1D', space: [{ path: 'sl_pct', values: [3, 5] }] } })
      expect(base.status).toBe(422)
      expect(base.body.detail[0].msg).toContain("timeframe 4H is lower than the run's 1D")
    })

    test('a tree without such leaves reports 0', async () => {
      const r = await h.req('/backtest', { method: 'POST', json: { entry: { field: 'close', op: '>', value: 0 }, indicators: {}, symbols: ['ETHUSDT'], max_bars: 4 } })
      expect(r.body.condition_data_absent_bars).toBe(0)
    })
  })
}
