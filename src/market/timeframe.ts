/** Candle timeframes and their UTC bucket arithmetic. 1W buckets start Monday 00:00 UTC. */
import { DAY_MS, HOUR_MS } from '../time'

export const TIMEFRAMES = ['1H', '2H', '4H', '6H', '12H', '1D', '1W'] as const
export type Timeframe = (typeof TIMEFRAMES)[number]

export const TIMEFRAME_MS: Record<Timeframe, number> = {
  '1H': HOUR_MS,
  '2H': 2 * HOUR_MS,
  '4H': 4 * HOUR_MS,
  '6H': 6 * HOUR_MS,
  '12H': 12 * HOUR_MS,
  '1D': DAY_MS,
  '1W': 7 * DAY_MS,
}

/** 1970-01-01 was a Thursday; the first Monday 00:00 UTC is four days later. */
const WEEK_ORIGIN_MS = 4 * DAY_MS

export function bucketStart(tMs: number, tf: Timeframe): number {
  const size = TIMEFRAME_MS[tf]
  const origin = tf === '1W' ? WEEK_ORIGIN_MS : 0
  return Math.floor((tMs - origin) / size) * size + origin
}

export function isTimeframe(s: string): s is Timeframe {
  return (TIMEFRAMES as readonly string[]).includes(s)
}
