import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'
import { T0 } from './research-fixtures'

const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT', 'DOGEUSDT']
const fill = (store: any) => fillWalkUniverse(store, COINS, T0, 150, 11)

const h = makeHarness({ fill })
afterAll(() => h.cleanup())

const SIX = [1, 2, 3, 4, 5, 6]
const optimize = (json: Record<string, unknown>) => h.req('/simulate/optimize', { method: 'POST', json: { strategy: 'bb-squeeze-short', ...json } })

describe('POST /simulate/optimize', () => {
  test('36 cells run: a 6 × 6 matrix, rows SL and columns TP, deflated for 36 trials', async () => {
    const r = await optimize({ sl_values: SIX, tp_values: SIX })
    expect(r.status).toBe(200)
    expect(r.body.n_cells).toBe(36)
    expect(r.body.grid.length).toBe(6)
    for (const [i, row] of r.body.grid.entries()) {
      expect(row.length).toBe(6)
      expect(row.map((c: any) => c.sl_pct)).toEqual(Array(6).fill(SIX[i]))
      expect(row.map((c: any) => c.tp_pct)).toEqual(SIX)
    }
    expect(r.body.heatmap.values.map((row: any[]) => row.length)).toEqual(Array(6).fill(6))
    expect(r.body.deflated_sharpe_info.n_trials).toBe(36)
  })

  test('deflated_sharpe is the number it is on /backtest and /simulate (the DSR); deflated_sharpe_info the computation behind it', async () => {
    const r = await optimize({ sl_values: SIX, tp_values: SIX })
    expect(typeof r.body.deflated_sharpe).toBe('number')
    expect(r.body.deflated_sharpe).toBe(r.body.deflated_sharpe_info.dsr)
    expect(Object.keys(r.body.deflated_sharpe_info).sort()).toEqual(['caveat', 'dsr', 'kurtosis_raw', 'n_obs', 'n_trials', 'sensitivity', 'sharpe_annualized', 'skew'])
  })

  test('each cell says whether its portfolio was ruined (ruined_at), as a run does, and its drawdown stays within 100 %', async () => {
    const cells = (b: any) => b.grid.flat() as { ruined_at: string | null; max_drawdown_pct: number; total_trades: number }[]
    const calm = await optimize({ sl_values: [2, 4], tp_values: [2, 4] })
    expect(cells(calm.body).every(c => c.ruined_at === null)).toBe(true)
    // 125x with stops wider than the liquidation distance: margins are lost whole
    const wild = await optimize({ sl_values: [40, 50], tp_values: [40, 50], leverage: 125 })
    expect(wild.status).toBe(200)
    const ruined = cells(wild.body).filter(c => c.ruined_at !== null)
    expect(ruined.length).toBeGreaterThan(0)
    for (const c of ruined) {
      expect(c.ruined_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
      // ruin is called on the realised equity at an exit (docs/metrics.md §2); the daily curve
      // marks open positions at the day's close, so its deepest fall is large but may stay below 100
      expect(c.max_drawdown_pct).toBeGreaterThan(50)
    }
    for (const c of cells(wild.body)) expect(c.max_drawdown_pct).toBeLessThanOrEqual(100)
  })

  test('37 or more cells are a 422 that names the limit', async () => {
    const r = await optimize({ sl_values: SIX, tp_values: [...SIX, 7] })
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['body', 'tp_values'])
    expect(r.body.detail[0].msg).toContain('42 cells')
    expect(r.body.detail[0].msg).toContain('at most 36')
    const long = await optimize({ sl_values: [2], tp_values: Array.from({ length: 37 }, (_, i) => 1 + i) })
    expect(long.status).toBe(422)
  })

  test('candidates outside the backtest ranges are a 422', async () => {
    expect((await optimize({ sl_values: [0.4], tp_values: [2] })).status).toBe(422)
    expect((await optimize({ sl_values: [2], tp_values: [101] })).status).toBe(422)
  })

  test('each cell is exactly the /simulate run with that SL and TP (signals reused, only exits change)', async () => {
    const r = await optimize({ sl_values: [2, 5], tp_values: [3, 8] })
    for (const row of r.body.grid)
      for (const cell of row) {
        const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', sl_pct: cell.sl_pct, tp_pct: cell.tp_pct } })
        expect(cell.total_trades).toBe(sim.body.total_trades)
        expect(cell.profit_factor).toBe(sim.body.profit_factor)
        expect(cell.total_return_pct).toBe(sim.body.total_return_pct)
        expect(cell.sharpe_ratio).toBe(sim.body.sharpe_ratio)
        expect(cell.max_drawdown_pct).toBe(sim.body.max_drawdown_pct)
      }
  })

  test('the best cell maximises the objective', async () => {
    for (const [objective, key] of [['total_return', 'total_return_pct'], ['profit_factor', 'profit_factor'], ['calmar', 'calmar_ratio'], ['sharpe', 'sharpe_ratio']] as const) {
      const r = await optimize({ sl_values: [2, 4, 8], tp_values: [2, 4, 8], objective })
      const cells = r.body.grid.flat().filter((c: any) => c.total_trades > 0)
      const top = Math.max(...cells.map((c: any) => c[key]))
      expect(r.body.best[key]).toBe(top)
      expect(r.body.best.objective_value).toBe(top)
    }
  })

  test('a best cell that does not survive deflation carries a plain warning', async () => {
    const r = await optimize({ sl_values: SIX, tp_values: SIX })
    const d = r.body.deflated_sharpe_info
    expect(r.body.significant).toBe(d.dsr >= 0.95)
    expect(r.body.warning !== null).toBe(!r.body.significant)
    // random walks have no edge: the warning is there and says why
    expect(r.body.significant).toBe(false)
    expect(r.body.warning).toContain('not significant after deflation for the 36 cells')
  })

  test('a one-cell grid has nothing to select from: one trial, no haircut', async () => {
    const r = await optimize({ sl_values: [2], tp_values: [4] })
    const d = r.body.deflated_sharpe_info
    expect(d.n_trials).toBe(1)
    expect(d.dsr).toBe(d.sensitivity['1'])
    expect(d.sensitivity['1']).toBeGreaterThan(d.sensitivity['10'])
    expect(r.body.dsr_haircut_pct === null || r.body.dsr_haircut_pct === 0).toBe(true)
  })

  test('a custom tree works as in /backtest; an unknown strategy is a 404', async () => {
    const r = await h.req('/simulate/optimize', {
      method: 'POST',
      json: { entry: { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }, indicators: { bb: {} }, sl_values: [2, 4], tp_values: [2] },
    })
    expect(r.status).toBe(200)
    expect(r.body.strategy).toBe('Custom Strategy')
    expect(r.body.n_cells).toBe(2)
    expect((await optimize({ strategy: 'nope-long', sl_values: [2], tp_values: [2] })).status).toBe(404)
  })
})
