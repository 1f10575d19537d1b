import { afterAll, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
const T0 = Date.UTC(2025, 0, 1)
const h = makeHarness({ fill: store => fillWalkUniverse(store, ['BTCUSDT', 'ETHUSDT'], T0, 120, 100) })
afterAll(() => h.cleanup())
const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }
test('probe', async () => {
  for (const v of [null, 5, 'x', [], [ENTRY], true]) {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: v } })
    console.log('entry', JSON.stringify(v), r.status, JSON.stringify(r.body).slice(0, 300))
  }
  for (const v of [5, 'x', [], true]) {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: ENTRY, exit_conditions: v } })
    console.log('exit', JSON.stringify(v), r.status, JSON.stringify(r.body).slice(0, 300))
  }
  for (const v of [{ type: 'AND', conditions: [{ field: 'nope', op: '>', value: 1 }] }, { type: 'XOR' }, { field: 'close', op: '>>', value: 'x' }]) {
    const r = await h.req('/backtest', { method: 'POST', json: { entry: v } })
    console.log('tree', JSON.stringify(v), r.status, JSON.stringify(r.body.validation_errors ?? r.body).slice(0, 400))
  }
  let r = await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'BTCUSDT', market_type: 'spot', direction: 'short' } })
  console.log('spot short', r.status, JSON.stringify(r.body).slice(0, 200))
  r = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', market_type: 'spot', symbols: ['BTCUSDT'] } })
  console.log('simulate spot short', r.status, JSON.stringify(r.body).slice(0, 200))
  for (const p of ['/ohlcv/nope', '/ohlcv/BTCUSDT?timeframe=1W&limit=3']) { r = await h.req(p); console.log(p, r.status, JSON.stringify(r.body).slice(0, 600)) }
  for (const [p, b] of [['/simulate', { strategy: 'bb-squeeze-short', symbols: ['nope'] }], ['/backtest', { entry: ENTRY, symbol: 'nope' }], ['/simulate/coin', { symbol: 'nope' }], ['/simulate/dca', { symbol: 'NOPEUSDT', params: {} }], ['/simulate/grid', { symbol: 'NOPEUSDT', params: {} }]] as const) {
    r = await h.req(p, { method: 'POST', json: b }); console.log(p, r.status, JSON.stringify(r.body).slice(0, 300))
  }
  for (const p of ['/coins?include_stablecoins=1', '/coins?include_stablecoins=TRUE', '/rankings/daily?selection=yes']) { r = await h.req(p); console.log(p, r.status, JSON.stringify(r.body).slice(0, 300)) }
  console.log(new Date(T0).toUTCString())
})
