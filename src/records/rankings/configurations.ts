/**
 * The ranked population and its rules: configurations (registry strategy × timeframe ×
 * SL/TP/max-bars preset), periods, groups, costs, sort, cap and minimum trades. One place;
 * docs/rankings.md and GET /rankings/criteria state the same table.
 */
import { DEFAULT_FEE_FRAC, type Direction } from '../../engine/types'
import { PROFIT_FACTOR_CAP } from '../../engine/metrics-breakdown'
import type { Timeframe } from '../../market/timeframe'
import { executionBodyOf } from '../../runs/execution-spec'
import type { SimulateFields } from '../../runs/simulate-spec'
import { DEFAULT_EXECUTION } from '../../runs/spec'
import { listStrategies, type StrategyDef } from '../../strategies/registry'
import type { StrategyStatus } from '../../strategies/status'
import { DAY_MS, HOUR_MS, isoDay, isoInstant } from '../../time'

/**
 * The ranking rules' version: the prefix of every configuration id. It changes when the
 * rules (population, presets, costs, sort, cap, minimum) change, never otherwise.
 * v3 (one bump for the release of issues 25 and 26): the top-N groups run on the
 * point-in-time universe (the ranks known on each day of the period, delisted coins
 * included; docs/rankings.md), and the fills of issue 25.
 */
export const RULES_VERSION = 'v3'

/** Do a configuration's rules (its id's version) run the top-N groups point-in-time (v3 on)? */
export function pointInTimeRules(configurationId: string): boolean {
  const m = /^v(\d+):/.exec(configurationId)
  return m !== null && Number(m[1]) >= 3
}
/** version of the day file's and the response's layout (its history: versions.ts) */
export { SCHEMA_VERSION } from './versions'

export const PERIODS = ['7d', '30d', '365d'] as const
export type Period = (typeof PERIODS)[number]
export const PERIOD_DAYS: Readonly<Record<Period, number>> = { '7d': 7, '30d': 30, '365d': 365 }

export const GROUPS = ['top30', 'top50', 'top100', 'btc'] as const
export type Group = (typeof GROUPS)[number]
/** top-N of a group (null: the btc group, BTCUSDT alone) */
export const GROUP_TOP_N: Readonly<Record<Group, number | null>> = { top30: 30, top50: 50, top100: 100, btc: null }
export const BTC_SYMBOL = 'BTCUSDT'

/** rows with fewer trades are held back: they keep an overall rank but are not in the ranked list (top3, worst3, weekly_best3, the headline) */
export const MIN_TRADES = 10
/** a profit factor with no losing trade (or above this) is shown as this and flagged pf_capped */
export const PF_CAP = PROFIT_FACTOR_CAP
/** days the job looks back for dates to publish (missed days, a fresh store's backfill) */
export const CATCH_UP_DAYS = 30

/**
 * The newest ranking date a store's candles allow (00:00 UTC, ms): a date is ranked once
 * the store holds the candle of the last hour of its eve (opening at date − 1 h).
 */
export function newestRankableDateMs(newestCandleMs: number): number {
  return Math.floor((newestCandleMs + HOUR_MS) / DAY_MS) * DAY_MS
}

/**
 * Why no ranking can be published for the dates the job looks at (the CATCH_UP_DAYS up to
 * today), or null when the store's candles reach them: an empty store, or one whose
 * candles end before that window (an import of old data). The job publishes nothing on its
 * own then; a past date can still be published by hand.
 */
export function unrankableReason(newestCandleMs: number | null, nowMs: number): string | null {
  if (newestCandleMs === null) return 'the store holds no candles: import or sync market data first (docs/data.md)'
  const newest = newestRankableDateMs(newestCandleMs)
  const earliest = Math.floor(nowMs / DAY_MS) * DAY_MS - CATCH_UP_DAYS * DAY_MS
  if (newest >= earliest) return null
  return (
    `the store's candles end on ${isoDay(newestCandleMs)} (newest candle opens ${isoInstant(newestCandleMs)}), and a ranking date needs the candles up to its eve: ` +
    `the newest date they can rank is ${isoDay(newest)}, while the daily job publishes the last ${CATCH_UP_DAYS} days (${isoDay(earliest)} to ${isoDay(nowMs)}). ` +
    `Publish a past day with \`npm run cli -- jobs run rankings --date ${isoDay(newest)}\`, or bring the store up to date (docs/data.md)`
  )
}

/** top-10 membership counts for `streak` */
export const STREAK_TOP = 10
/** weekly_best3: ranked (with at least MIN_TRADES) on at least this many of the last 7 days */
export const WEEKLY_MIN_DAYS = 5
export const WEEKLY_DAYS = 7

/**
 * the costs and sizing of every ranked /simulate body: those of POST /simulate's defaults
 * (stop_at_ruin from rules v2; the execution settings of issue 25 from v3, written out so a
 * published body reruns the same model whatever later defaults become)
 */
export const COST_FIELDS = {
  market_type: 'futures',
  fee_pct: DEFAULT_FEE_FRAC.futures,
  ...executionBodyOf(DEFAULT_EXECUTION),
  leverage: 1,
  per_coin_usd: 60,
  max_concurrent_positions: 100,
  compounding: false,
  stop_at_ruin: true,
  include_stablecoins: false,
} as const

export const COSTS = {
  ...COST_FIELDS,
  funding: 'real funding events of the store (0.01% per 8h outside the span of real events)',
} as const

export interface Preset {
  sl_pct: number
  tp_pct: number
  max_bars: number
}

/** presets per timeframe; 'default' = the strategy's own sl_pct / tp_pct / max_bars */
export const PRESETS: ReadonlyArray<{ timeframe: Timeframe; presets: ReadonlyArray<Preset | 'default'> }> = [
  { timeframe: '1H', presets: ['default', { sl_pct: 5, tp_pct: 10, max_bars: 48 }, { sl_pct: 8, tp_pct: 15, max_bars: 72 }] },
  { timeframe: '4H', presets: [{ sl_pct: 10, tp_pct: 10, max_bars: 12 }, { sl_pct: 6, tp_pct: 12, max_bars: 18 }] },
  { timeframe: '1D', presets: [{ sl_pct: 15, tp_pct: 15, max_bars: 10 }] },
]

export interface Configuration extends Preset {
  /** `v1:<strategy>:<timeframe>:<sl>-<tp>-<max_bars>` */
  id: string
  strategy: string
  name: string
  direction: Direction
  status: StrategyStatus
  timeframe: Timeframe
}

export function configurationId(strategy: string, timeframe: Timeframe, p: Preset): string {
  return `${RULES_VERSION}:${strategy}:${timeframe}:${p.sl_pct}-${p.tp_pct}-${p.max_bars}`
}

/** Every configuration of the registry, in registry order (a preset equal to the default counts once). */
export function configurations(strategies: readonly StrategyDef[] = listStrategies()): Configuration[] {
  const out: Configuration[] = []
  for (const s of strategies)
    for (const { timeframe, presets } of PRESETS) {
      const seen = new Set<string>()
      for (const pr of presets) {
        const p = pr === 'default' ? { sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars } : pr
        const id = configurationId(s.id, timeframe, p)
        if (seen.has(id)) continue
        seen.add(id)
        out.push({ id, strategy: s.id, name: s.name, direction: s.direction, status: s.status, timeframe, ...p })
      }
    }
  return out
}


/** The UTC days a period covers for a ranking date (the ranking date itself excluded). */
export function periodWindow(dateMs: number, period: Period): { start_date: string; end_date: string } {
  return { start_date: isoDay(dateMs - PERIOD_DAYS[period] * DAY_MS), end_date: isoDay(dateMs - DAY_MS) }
}

/** The POST /simulate body whose answer a row's figures are. */
export function simulateBodyOf(c: Configuration, dateMs: number, period: Period, group: Group): SimulateFields {
  const topN = GROUP_TOP_N[group]
  return {
    strategy: c.strategy,
    sl_pct: c.sl_pct,
    tp_pct: c.tp_pct,
    max_bars: c.max_bars,
    timeframe: c.timeframe,
    ...periodWindow(dateMs, period),
    top_n: topN,
    symbols: topN === null ? [BTC_SYMBOL] : null,
    ...COST_FIELDS,
    // v3 on: the group is the top N as known on each day (a v2 row's body stays as it was published)
    ...(topN !== null && pointInTimeRules(c.id) ? { universe: 'point_in_time' as const } : {}),
  }
}

/** One sentence naming the ranked population. */
export function rcScope(configCount: number, strategyCount: number): string {
  return (
    `${configCount} configurations: the ${strategyCount} registry strategies on 1H (their default, 5/10/48 and 8/15/72 SL%/TP%/max bars), ` +
    `4H (10/10/12 and 6/12/18) and 1D (15/15/10), each run like POST /simulate over the group's coins ` +
    `(top 30/50/100 of the eligible universe by market-cap rank, or BTCUSDT alone) and the period's UTC days before the ranking date, ` +
    `futures, taker fee 0.05% per side, market fills paying half the estimated spread plus square-root impact, Binance margin brackets, real funding, leverage 1, 60 USD per position, no compounding, at most 100 open positions, no trade once the equity has reached zero.`
  )
}
