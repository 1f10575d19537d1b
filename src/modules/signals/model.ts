import { t } from 'elysia'
import { FrozenExecution } from '../../model/shared'

export const LiveQuery = t.Object({
  top_n: t.Integer({ minimum: 1, maximum: 100, default: 30, description: 'coins of the scanned top 100, in market-cap order' }),
})

/** a page of /signals/history: the answer of every signal of 72 hours was megabytes */
export const HISTORY_LIMIT_DEFAULT = 200
export const HISTORY_LIMIT_MAX = 500

export const HistoryQuery = t.Object({
  hours: t.Integer({ minimum: 1, maximum: 72, default: 24, description: 'signals whose signal_time lies in the last N hours' }),
  limit: t.Integer({ minimum: 1, maximum: HISTORY_LIMIT_MAX, default: HISTORY_LIMIT_DEFAULT, description: `signals per page (1 to ${HISTORY_LIMIT_MAX})` }),
  cursor: t.Optional(t.String({ minLength: 1, description: 'next_cursor of the previous page, unchanged (opaque); omitted: the first page' })),
})

export const RealtimeQuery = t.Object({
  min_pf: t.Number({ minimum: 0, default: 2.0, description: 'least 30-day ranking profit factor' }),
  max_results: t.Integer({ minimum: 1, maximum: 50, default: 10, description: 'at most 50 (about 35 KB; the contract bounds the answer near 50 KB)' }),
})

export const ScoredQuery = t.Object({
  days: t.Integer({ minimum: 1, maximum: 90, default: 14, description: 'signals published in the last N days' }),
  limit: t.Integer({ minimum: 1, maximum: 500, default: 200 }),
  signal_ids: t.Optional(t.String({ description: 'comma-separated recorded ids (at most 500); an exact lookup ignores days and limit' })),
})

const StrategyStatus = t.UnionEnum(['verified', 'testing', 'research'])
const Direction = t.UnionEnum(['long', 'short'])

/** The contract's Signal, plus the record's own fields. */
export const Signal = t.Object({
  id: t.String({ description: 'v1:<strategy>:<timeframe>:<coin>:<signal bar open time, ms>' }),
  strategy: t.String(),
  strategy_name: t.String(),
  coin: t.String(),
  direction: Direction,
  timeframe: t.String(),
  signal_bar_time: t.String({ description: 'open time of the signal bar (ISO 8601 UTC with Z, whole seconds)' }),
  signal_time: t.String({ description: 'the signal bar close = the entry bar open; the contract’s ISO 8601 timestamp without zone, meaning UTC (2026-03-15T01:00:00)' }),
  entry_price: t.Number({ description: 'the entry bar open: the trade model entry' }),
  status: StrategyStatus,
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  max_bars: t.Integer(),
  published_at: t.String({ description: 'when the signal was recorded (ISO 8601 UTC with Z, whole seconds)' }),
  backfill: t.Boolean({ description: 'recorded by a catch-up scan, after a newer bar had completed' }),
})

export const SignalList = t.Array(Signal)

export const HistoryResponse = t.Object({
  as_of: t.String({ description: 'the end of the window (ISO 8601 UTC, Z): the first page’s clock, carried by the cursor' }),
  hours: t.Integer(),
  limit: t.Integer(),
  count: t.Integer({ description: 'signals on this page' }),
  total: t.Integer({ description: 'signals in the whole window' }),
  next_cursor: t.Union([t.String(), t.Null()], { description: 'pass as cursor for the next page; null on the last page' }),
  signals: SignalList,
})

export const RealtimeSignal = t.Composite([
  Signal,
  t.Object({
    configuration_id: t.String(),
    rank: t.Integer(),
    profit_factor: t.Number(),
    win_rate: t.Number(),
    trades: t.Integer(),
    ranking_timeframe: t.String(),
    ranking_date: t.String(),
  }),
])

export const RealtimeList = t.Array(RealtimeSignal)

const NullableNumber = t.Union([t.Number(), t.Null()])

export const ScoredSignal = t.Object({
  id: t.String(),
  strategy: t.String(),
  strategy_name: t.String(),
  strategy_status: StrategyStatus,
  coin: t.String(),
  direction: Direction,
  timeframe: t.String(),
  entry_price: t.Number(),
  sl_pct: t.Number(),
  tp_pct: t.Number(),
  max_bars: t.Integer(),
  signal_time: t.String(),
  published_at: t.String(),
  status: t.UnionEnum(['tp', 'sl', 'timeout', 'liquidation', 'open', 'unscoreable']),
  engine: t.String(),
  pnl_pct: t.Number({ description: 'open: gross reference move to the last completed close; closed: net of fees and funding (% of margin)' }),
  exit_price: NullableNumber,
  exit_time: t.Union([t.String(), t.Null()]),
  bars_held: t.Union([t.Integer(), t.Null()]),
  exit_reason: t.Union([t.String(), t.Null()]),
  reason: t.Union([t.String(), t.Null()], { description: 'why a row is unscoreable' }),
  gross_pct: NullableNumber,
  fee_pct: NullableNumber,
  funding_pct: NullableNumber,
  marked_through: t.String({ description: 'close time of the last candle the scorer used' }),
  finalized_at: t.Union([t.String(), t.Null()]),
  exit_resolution: t.Optional(
    t.Union([t.Literal('detail'), t.Literal('bar'), t.Null()], {
      description:
        "rows of reference-engine-v4 on: 'detail' when the exit bar was replayed minute by minute (docs/metrics.md §1 \"Minute detail\"), 'bar' when the bar rule decided it (no ambiguity, or no minutes there); null while open or unscoreable; absent on rows of earlier engines",
    }),
  ),
  frozen_inputs: t.Object({
    fee_frac: t.Number(),
    leverage: t.Number(),
    mmr_frac: t.Number(),
    sl_pct: t.Number(),
    tp_pct: t.Number(),
    max_bars: t.Integer(),
    market_type: t.Literal('futures'),
    funding_source: t.String(),
    execution: t.Optional(
      FrozenExecution('60 USD × leverage', 'the execution settings the row is priced with, frozen by its engine label (docs/signals.md); absent on rows of reference-engine-v2 and before'),
    ),
  }),
  funding_coverage: t.Union([
    t.Object({ events: t.Integer(), real_events: t.Integer(), coverage_pct: NullableNumber }),
    t.Null(),
  ]),
})

export const ScoredResponse = t.Object({
  as_of: t.String(),
  engine: t.String(),
  note: t.String(),
  signals: t.Array(ScoredSignal),
})
