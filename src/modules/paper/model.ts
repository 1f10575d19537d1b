import { t } from 'elysia'
import { FrozenExecution } from '../../model/shared'

export const PaperQuery = t.Object({
  cycle: t.Optional(t.Integer({ minimum: 1, description: 'cycle number; default the latest' })),
})

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(x: T) => t.Union([x, t.Null()])

export const PaperPosition = t.Object({
  id: t.String(),
  cycle_id: t.Integer(),
  signal_id: t.String(),
  configuration_id: t.String(),
  strategy: t.String(),
  coin: t.String(),
  direction: t.String(),
  timeframe: t.String(),
  status: t.String({ description: 'pending, open, tp, sl, signal, timeout, liquidation, cycle_end, cancelled' }),
  margin_usd: t.Number(),
  leverage: t.Number(),
  fee_frac: t.Number(),
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  max_bars: t.Integer(),
  reference_entry_price: t.Number(),
  entry_time: t.String(),
  entry_price: Nullable(t.Number()),
  exit_reason: Nullable(t.String()),
  exit_time: Nullable(t.String()),
  exit_price: Nullable(t.Number()),
  bars_held: Nullable(t.Integer()),
  pnl_pct: Nullable(t.Number()),
  pnl_usd: Nullable(t.Number()),
  mark_price: Nullable(t.Number()),
  unrealized_usd: Nullable(t.Number()),
  marked_through: t.String(),
  opened_at: t.String(),
  closed_at: Nullable(t.String()),
  engine: t.Optional(
    t.String({
      description:
        "the execution model the position is priced with, frozen at its opening: 'reference-engine-v4' (opened since issue 25 §4: execution costs, ambiguous bars replayed by the coin's minutes where it has them, liquidation on the mark price where stored: /simulate's defaults), 'reference-engine-v3' (execution costs, bar rule, last price); absent on positions opened before them (taker fee only, flat margin)",
    }),
  ),
  exit_resolution: t.Optional(
    t.Union([t.Literal('detail'), t.Literal('bar'), t.Null()], {
      description: "reference-engine-v4 positions: 'detail' when the exit bar was replayed minute by minute, 'bar' when the bar rule decided it; null while open or when cancelled; absent on earlier positions",
    }),
  ),
  execution: t.Optional(FrozenExecution('margin_usd × leverage', 'the execution settings of an engine-labelled position (docs/paper-trading.md)')),
})

const Picks = Nullable(
  t.Object({
    day: t.String(),
    picked_at: t.String(),
    rule: t.String({ description: 'ranking, regime or none' }),
    ranking_date: Nullable(t.String()),
    strategies: t.Array(t.Object({ configuration_id: t.String(), strategy: t.String(), timeframe: t.String(), sl_pct: t.Number(), tp_pct: t.Number(), max_bars: t.Integer(), profit_factor: Nullable(t.Number()), total_trades: Nullable(t.Integer()) })),
  }),
)

export const PaperState = t.Object({
  cycle_id: t.Integer(),
  cycle_status: t.UnionEnum(['active', 'complete']),
  cycle_day: t.Integer(),
  cycle_length_days: t.Integer(),
  start_date: t.String(),
  end_date: t.String(),
  starting_capital: t.Number(),
  slots: t.Integer(),
  current_equity: t.Number(),
  total_return_pct: t.Number(),
  yesterday_pnl: Nullable(t.Number()),
  yesterday: Nullable(t.String()),
  realized_pnl: t.Number(),
  unrealized_pnl: t.Number(),
  open_positions: t.Array(PaperPosition),
  closed_positions: t.Array(PaperPosition),
  history: t.Array(t.Object({ date: t.String(), equity: t.Number(), open_count: t.Integer(), closed_count: t.Integer() })),
  picks: Picks,
  pick_rule: t.String(),
  marked_at: t.String(),
  completed_at: Nullable(t.String()),
})

export const PerformancePublic = t.Object({
  as_of: t.String(),
  regime: t.Unknown({ description: 'as GET /regime' }),
  paper: Nullable(
    t.Object({
      cycle_id: t.Integer(),
      cycle_status: t.String(),
      cycle_day: t.Integer(),
      cycle_return_pct: t.Number(),
      strategy_pick: Picks,
      positions: t.Object({ open_count: t.Integer(), exposure_usd: t.Number(), unrealized_pnl_usd: t.Number() }),
    }),
  ),
})

