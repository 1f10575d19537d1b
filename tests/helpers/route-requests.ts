/**
 * One request of each kind of simulation route, on the walk universe's coins: what the
 * byte-equality tests of the transports send both ways (in-process against serialised, and
 * the pool against the queue) and compare.
 */
export const SIMULATION_REQUESTS: [string, unknown][] = [
  ['/simulate', { strategy: 'bb-squeeze-short', top_n: 7 }],
  // a point-in-time universe: its twin on today's coins comes back from the same tasks (the rows of the coins whose membership limited them)
  ['/simulate', { strategy: 'bb-squeeze-short', top_n: 5, start_date: '2026-08-20', universe: 'point_in_time', rebalance: 'weekly' }],
  ['/simulate/compare', { top_n: 5 }],
  ['/backtest', { name: 't', direction: 'short', indicators: { bb: {}, rsi: {} }, entry: { type: 'AND', conditions: [{ field: 'close', op: '<', value: { field: 'bb_lower' } }, { field: 'rsi', op: '<', value: 40 }] }, top_n: 7 }],
  ['/simulate/validate', { strategy: 'bb-squeeze-short', top_n: 7, n_simulations: 200, oos_pct: 30 }],
  ['/simulate/optimize', { strategy: 'bb-squeeze-short', top_n: 7, sl_values: [2, 4], tp_values: [3, 6], objective: 'sharpe' }],
  ['/simulate/dca', { symbol: 'BTCUSDT', params: { max_safety_orders: 3, take_profit_pct: 2 } }],
  ['/simulate/grid', { symbol: 'BTCUSDT', params: { lower_price: 80, upper_price: 120, grid_count: 40, direction: 'long' } }],
]
