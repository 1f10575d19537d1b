/**
 * A run's universe as it was known at the time (docs/api.md "Universe", docs/data.md
 * "Rank history"): the request's `universe` and `rebalance` decided into the spec, and a
 * point-in-time run's plan: the top N re-formed from the rank history at the window's
 * start and at each rebalance, each coin's intervals of membership (it may open trades
 * only inside them; engine/tradable-windows.ts), and the survivorship figures against
 * today's universe.
 */
import type { AcceptInput } from '../engine/portfolio'
import type { TradeTable } from '../engine/trade-table'
import type { CandleStore } from '../market/candle-store'
import type { RankHistory } from '../market/rank-history'
import { DAY_MS, isoDay, parseDay } from '../time'
import { InvalidRequest } from './errors'
import { DEFAULT_TOP_N, type RunSpec } from './spec'

export const UNIVERSE_MODES = ['point_in_time', 'current'] as const
export type UniverseMode = (typeof UNIVERSE_MODES)[number]
export const REBALANCES = ['monthly', 'weekly', 'none'] as const
export type Rebalance = (typeof REBALANCES)[number]

/** a start_date more than this many days before the store's last candle defaults to point_in_time */
export const POINT_IN_TIME_AFTER_DAYS = 30

/** The request fields that choose the universe (every request taking top_n has them). */
export interface UniverseFields {
  universe?: UniverseMode | null
  rebalance?: Rebalance | null
}

/** The universe a spec runs on: point_in_time (with its rebalance), else today's. */
export function universeModeOf(spec: RunSpec): UniverseMode {
  return spec.universe === 'point_in_time' ? 'point_in_time' : 'current'
}

/**
 * The spec with the request's universe decided: `point_in_time` when asked, `current`
 * when asked, else point_in_time for a top-N run whose start_date lies more than 30 days
 * before the store's last candle, current otherwise. A current run carries neither key,
 * so its result hash is the one it had before universes existed. Refused (422): a
 * point-in-time universe for explicit symbols, a rebalance for a current universe.
 */
export function withUniverse(spec: RunSpec, fields: UniverseFields, newestCandleMs: number | null): RunSpec {
  const asked = fields.universe ?? null
  if (asked === 'point_in_time' && spec.symbols)
    throw new InvalidRequest([{ loc: ['body', 'universe'], msg: "universe 'point_in_time' re-forms a top-N set; with explicit symbols use 'current' (or leave it out)", input: asked }])
  const start = spec.startDate ? parseDay(spec.startDate) : null
  const byDefault = !spec.symbols && start !== null && newestCandleMs !== null && newestCandleMs - start > POINT_IN_TIME_AFTER_DAYS * DAY_MS
  const mode: UniverseMode = asked ?? (byDefault ? 'point_in_time' : 'current')
  const { universe: _u, rebalance: _r, ...rest } = spec
  if (mode === 'current') {
    if (fields.rebalance != null) {
      const why = asked === 'current' ? "universe is 'current'" : spec.symbols ? 'the run has explicit symbols' : `universe defaults to 'current' here (start_date is not more than ${POINT_IN_TIME_AFTER_DAYS} days before the store's last candle)`
      throw new InvalidRequest([{ loc: ['body', 'rebalance'], msg: `rebalance applies to universe 'point_in_time' only, and ${why}: leave rebalance out or send universe 'point_in_time'`, input: fields.rebalance }])
    }
    return rest
  }
  return { ...rest, universe: 'point_in_time', rebalance: fields.rebalance ?? 'monthly' }
}

/** A point-in-time run's universe. */
export interface UniversePlan {
  rebalance: Rebalance
  /** the days the set was formed (UTC midnights; the first is the window's start) and each day's set, in rank order */
  days: number[]
  sets: string[][]
  /** every coin of any set: the first set in rank order, then the later entrants as they entered */
  symbols: string[]
  /** per coin, its membership intervals as [from, to, from, to, …] (ms, `to` exclusive) */
  tradable: Record<string, number[]>
  /** eligible coins on the window's start (the contract's eligible_universe) */
  eligibleAtStart: number
  /** the largest set (≤ top N): the portfolio's coin count */
  largestSet: number
  warnings: string[]
}

/** the rebalance days after `startMs` up to `endMs`: first days of months, or Mondays */
function rebalanceDays(rebalance: Rebalance, startMs: number, endMs: number): number[] {
  const days = [startMs]
  if (rebalance === 'none') return days
  for (let d = startMs + DAY_MS; d <= endMs; d += DAY_MS) {
    const date = new Date(d)
    if (rebalance === 'monthly' ? date.getUTCDate() === 1 : date.getUTCDay() === 1) days.push(d)
  }
  return days
}

/**
 * The plan of a point-in-time run: its window runs from start_date (or the first ranked
 * day) to end_date (or the store's last candle). A window that starts before the rank
 * history does is formed from the first ranked day on, with a warning naming it.
 */
export function planUniverse(spec: RunSpec, store: CandleStore, history: RankHistory): UniversePlan {
  const topN = spec.topN ?? DEFAULT_TOP_N
  const opts = { includeStablecoins: spec.includeStablecoins }
  const warnings: string[] = []
  const first = history.firstRankedDayMs()
  const newest = store.newestCandleMs()
  const asked = spec.startDate ? parseDay(spec.startDate)! : null
  let startMs = asked ?? first ?? 0
  if (first === null) warnings.push("universe 'point_in_time': the store has no candles to rank coins by, so no coin was in the set")
  else if (startMs < first) {
    warnings.push(`universe 'point_in_time': the rank history starts on ${isoDay(first)} (ranks use only days before the one they rank); no coin was in the set before it, so no trade opened before ${isoDay(first)}`)
    startMs = first
  }
  const endMs = spec.endDate ? parseDay(spec.endDate)! : newest === null ? startMs : Math.floor(newest / DAY_MS) * DAY_MS
  const days = first === null || startMs > endMs ? [] : rebalanceDays(spec.rebalance ?? 'monthly', startMs, endMs)
  const ranked = days.map(d => history.rankedOn(d, opts))
  const sets = ranked.map(r => r.slice(0, topN).map(c => c.symbol))
  const symbols: string[] = []
  const tradable: Record<string, number[]> = {}
  days.forEach((d, k) => {
    const to = k + 1 < days.length ? days[k + 1] : endMs + DAY_MS
    for (const s of sets[k]) {
      let w = tradable[s]
      if (!w) {
        w = tradable[s] = []
        symbols.push(s)
      }
      // a coin kept from one set to the next keeps one interval
      if (w.length && w[w.length - 1] === d) w[w.length - 1] = to
      else w.push(d, to)
    }
  })
  return {
    rebalance: spec.rebalance ?? 'monthly',
    days,
    sets,
    symbols,
    tradable,
    eligibleAtStart: ranked.length ? ranked[0].length : 0,
    largestSet: Math.max(0, ...sets.map(s => s.length)),
    warnings,
  }
}

/** The contract's survivorship block (docs/api.md "Universe"). */
export interface Survivorship {
  /** coins of today's top N that were in no set of the window */
  coins_today_not_then: string[]
  /** coins of the window's sets that are not in today's top N */
  coins_then_not_today: string[]
  /** coins of the window's sets whose market closed inside the window */
  delisted_in_window: string[]
  /** the same run on today's universe */
  current_universe_result: { total_return_pct: number; win_rate: number; profit_factor: number; total_trades: number }
}

/** The survivorship lists of a point-in-time plan against today's top N (the block but the twin's figures). */
export function survivorshipLists(plan: UniversePlan, today: readonly string[], store: CandleStore, window: { startMs: number; endMs: number }): Omit<Survivorship, 'current_universe_result'> {
  const then = new Set(plan.symbols)
  const now = new Set(today)
  return {
    coins_today_not_then: today.filter(s => !then.has(s)),
    coins_then_not_today: plan.symbols.filter(s => !now.has(s)),
    delisted_in_window: plan.symbols.filter(s => {
      const m = store.meta(s)
      return m?.status === 'delisted' && m.delistedMs != null && m.delistedMs >= window.startMs && m.delistedMs < window.endMs + DAY_MS
    }),
  }
}

/** The delisted coins among `symbols` (their trades still open at the last candle exit `delisted`). */
export function delistedAmong(symbols: readonly string[], store: CandleStore): string[] {
  return symbols.filter(s => store.meta(s)?.status === 'delisted')
}
