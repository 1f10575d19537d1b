/**
 * A simulation run in normalised form: every default filled, every alias resolved, keys
 * in a fixed order. Its JSON plus the store's data version is what `result_hash` digests,
 * what SQLite keeps for /export/csv, and what workers receive.
 */
import { createHash } from 'node:crypto'
import type { Direction, MarketType, TpSource } from '../engine/types'
import type { Timeframe } from '../market/timeframe'
import type { StrategySpec } from '../strategies/conditions'

export interface RunSpec {
  kind: 'backtest' | 'simulate'
  name: string
  /** registry id for /simulate, null for a custom tree */
  strategyId: string | null
  direction: Direction
  directionSource: 'request' | 'default_short'
  strategy: StrategySpec
  avoidHours: number[]
  avoidMonths: number[] | null
  minVolRegime: number | null
  slPct: number
  tpPct: number
  tpSource: TpSource
  trailingPct: number | null
  maxBars: number
  marketType: MarketType
  leverage: number
  /** taker fee per side, fraction */
  feeFrac: number
  timeframe: Timeframe
  startDate: string | null
  endDate: string | null
  /** top-N universe (null when explicit symbols are given) */
  topN: number | null
  symbols: string[] | null
  includeStablecoins: boolean
  perCoinUsd: number
  maxConcurrent: number
  compounding: boolean
}

/** JSON with object keys sorted, so equal specs give equal text whatever the key order. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.keys(val).sort().map(k => [k, (val as Record<string, unknown>)[k]]))
      : val,
  )
}

export function resultHash(spec: RunSpec, dataVersion: string): string {
  return createHash('sha256').update(canonicalJson(spec)).update('\n').update(dataVersion).digest('hex')
}

/** YYYY-MM-DD → UTC midnight ms, or null when not a real calendar date. */
export function parseDay(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return null
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3])
  return new Date(ms).toISOString().slice(0, 10) === s ? ms : null
}
