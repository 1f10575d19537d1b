/**
 * The published form of a scored signal: the /signals/scored item, and (with its kind) the
 * Merkle leaf a day root seals, so the two are the same bytes by construction.
 */
import type { Direction } from '../engine/types'
import type { StrategyStatus } from '../strategies/status'
import { isoNoZone, isoRecordInstant } from '../time'
import { replaysMinutes, scoringExecutionItem } from './scoring-execution'
import type { ScoredJoined } from './signals'
import { roundTo } from '../round'

const round = (x: number, d = 6) => roundTo(x, d)

export function scoredItem({ signal: s, scored: r }: ScoredJoined) {
  const closed = r.status !== 'open' && r.status !== 'unscoreable'
  return {
    id: s.id,
    strategy: s.strategy,
    strategy_name: s.strategyName,
    strategy_status: s.status as StrategyStatus,
    coin: s.coin,
    direction: s.direction as Direction,
    timeframe: s.timeframe,
    entry_price: r.entryPrice,
    sl_pct: r.slPct,
    tp_pct: r.tpPct,
    max_bars: r.maxBars,
    signal_time: isoNoZone(s.signalTimeMs),
    published_at: isoNoZone(s.publishedAtMs),
    status: r.status as 'tp' | 'sl' | 'timeout' | 'liquidation' | 'open' | 'unscoreable',
    engine: r.engine,
    pnl_pct: round(r.pnlPct),
    exit_price: r.exitPrice,
    exit_time: r.exitTimeMs === null ? null : isoRecordInstant(r.exitTimeMs),
    bars_held: r.barsHeld,
    exit_reason: r.exitReason,
    reason: r.reason,
    gross_pct: r.grossPct === null ? null : round(r.grossPct),
    fee_pct: r.feePct === null ? null : round(r.feePct),
    funding_pct: r.fundingPct === null ? null : round(r.fundingPct),
    marked_through: isoRecordInstant(r.markedThroughMs),
    finalized_at: r.finalizedAtMs === null ? null : isoRecordInstant(r.finalizedAtMs),
    // rows of an engine that replays minutes say how their exit was found; earlier rows' items (and leaves) keep their text
    ...(replaysMinutes(r.engine) ? { exit_resolution: (r.exitResolution as 'detail' | 'bar' | null) ?? null } : {}),
    frozen_inputs: {
      fee_frac: r.feeFrac,
      leverage: r.leverage,
      mmr_frac: r.mmrFrac,
      sl_pct: r.slPct,
      tp_pct: r.tpPct,
      max_bars: r.maxBars,
      market_type: 'futures' as const,
      funding_source: r.fundingSource,
      ...scoringExecutionItem(r.engine, r.leverage),
    },
    funding_coverage:
      closed && r.fundingEvents !== null
        ? { events: r.fundingEvents, real_events: r.fundingEventsReal ?? 0, coverage_pct: r.fundingEvents > 0 ? round(((r.fundingEventsReal ?? 0) / r.fundingEvents) * 100, 2) : null }
        : null,
  }
}
