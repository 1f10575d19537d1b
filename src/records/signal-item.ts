/**
 * The published form of a recorded signal: the /signals/live and /signals/history item, and
 * the payload of the push feed's `signal` event (docs/events.md), so the two are one shape.
 */
import type { signals } from '../../db/schema'
import type { Direction } from '../engine/types'
import type { StrategyStatus } from '../strategies/status'
import { isoNoZone } from './iso-time'

export function signalItem(s: typeof signals.$inferSelect) {
  return {
    id: s.id,
    strategy: s.strategy,
    strategy_name: s.strategyName,
    coin: s.coin,
    direction: s.direction as Direction,
    timeframe: s.timeframe,
    signal_bar_time: isoNoZone(s.signalBarMs),
    signal_time: isoNoZone(s.signalTimeMs),
    entry_price: s.entryPrice,
    status: s.status as StrategyStatus,
    sl_pct: s.slPct,
    tp_pct: s.tpPct,
    max_bars: s.maxBars,
    published_at: isoNoZone(s.publishedAtMs),
    backfill: s.backfill,
  }
}
