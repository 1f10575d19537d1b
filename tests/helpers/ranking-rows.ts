/** Ranking rows for the tests of the ranking rules: a configuration's figures with the given profit factor, win rate and trades. */
import type { RowFigures } from '../../src/records/rankings/rank'

export function rowFigures(id: string, pf: number, wr: number, trades: number, over: Partial<RowFigures> = {}): RowFigures {
  return {
    configuration_id: id,
    strategy: 'x-long',
    name_en: id,
    name_ko: null,
    direction: 'long',
    status: 'testing',
    timeframe: '1H',
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 48,
    total_trades: trades,
    win_rate: wr,
    profit_factor: pf,
    pf_capped: false,
    total_return_pct: 1,
    sharpe_ratio: 0,
    max_drawdown_pct: 1,
    ...over,
  }
}
