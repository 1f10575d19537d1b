/**
 * A simulation run in normalised form: every default filled, every alias resolved, keys
 * in a fixed order. Its JSON plus the store's data version is what `result_hash` digests,
 * what SQLite keeps for /export/csv, and what workers receive. Beside it: what the engine
 * takes from it (trade parameters, portfolio options) and the one check of its dates and
 * of its universe.
 */
import { createHash } from 'node:crypto'
import { canonicalJsonLikeStringify } from '../engine/canonical-json'
import { windowIndices, type BarWindow } from '../engine/date-window'
import type { PortfolioOptions } from '../engine/portfolio'
import { DEFAULT_MAKER_FEE_FRAC, type Execution, type MarginModel, type SlippageModel, type TpOrder } from '../engine/execution'
import { DEFAULT_LIQUIDATION_FEE_FRAC } from '../engine/margin-brackets'
import { DEFAULT_IMPACT_K } from '../engine/slippage'
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC, effectiveLeverage, type Direction, type IntrabarMode, type MarketType, type TpSource, type TradeParams } from '../engine/types'
import type { CandleStore } from '../market/candle-store'
import type { Timeframe } from '../market/timeframe'
import type { Bars } from '../market/types'
import type { Universe } from '../market/universe'
import type { StrategySpec } from '../strategies/conditions'
import { getStrategy, listStrategies, type StrategyDef } from '../strategies/registry'
import { crossDataProblems } from '../strategies/validate'
import { InvalidRequest, UnknownStrategy, UnknownSymbols, type Problem } from './errors'
import { parseDay } from '../time'

/** top_n when a request leaves it null */
export const DEFAULT_TOP_N = 50

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
  /**
   * stop opening trades once the equity has reached zero. Requests stored before it
   * existed lack it and ran with fresh capital: missing reads as false, and their hashes
   * (made without the key) stay theirs.
   */
  stopAtRuin: boolean
  /**
   * 'point_in_time': the top N as it was known at the window's start and at each rebalance
   * (universe-plan.ts). Absent: today's universe; such a run has the key missing, so its
   * hash is the one it had before universes existed.
   */
  universe?: 'point_in_time'
  /** when the point-in-time set is re-formed (present with universe only) */
  rebalance?: 'monthly' | 'weekly' | 'none'
  /**
   * how exits inside a bar are resolved (engine/types.ts IntrabarMode; issue 25 §1). Specs
   * stored before it existed lack it and ran the bar rule: missing reads as 'bar', and
   * their hashes stay theirs. New specs get DEFAULT_EXECUTION's 'detail'.
   */
  intrabar?: IntrabarMode
  /**
   * Execution (issue 25 §2–3; engine/execution.ts). Specs stored before it existed lack
   * these keys and ran the model before it: a missing `slippage` reads as that model
   * (no slippage, market take profit, flat margin), and their hashes stay theirs.
   */
  slippage?: SlippageModel
  impactK?: number
  tpOrder?: TpOrder
  /** maker fee per side, fraction (a limit take profit) */
  makerFeeFrac?: number
  /** liquidation fee on notional, fraction (margin 'brackets') */
  liquidationFeeFrac?: number
  margin?: MarginModel
}

/** The execution settings every new run gets unless its request says otherwise. */
export const DEFAULT_EXECUTION = {
  slippage: 'impact',
  impactK: DEFAULT_IMPACT_K,
  tpOrder: 'market',
  makerFeeFrac: DEFAULT_MAKER_FEE_FRAC,
  liquidationFeeFrac: DEFAULT_LIQUIDATION_FEE_FRAC,
  margin: 'brackets',
  intrabar: 'detail',
} as const satisfies Partial<RunSpec>

/**
 * The margin a run's costs are priced at, USD: per_coin_usd, or with compounding the
 * first position's (initial capital / max_concurrent_positions). Slippage and the bracket
 * are priced at this size × leverage for every trade (docs/metrics.md §1).
 */
export function nominalMarginUsd(spec: RunSpec): number {
  return spec.compounding ? spec.perCoinUsd / spec.maxConcurrent : spec.perCoinUsd
}

/** The run's execution, or undefined for a spec stored before execution settings existed. */
export function executionOf(spec: RunSpec): Execution | undefined {
  if (spec.slippage === undefined) return undefined
  return {
    slippage: spec.slippage,
    impactK: spec.impactK ?? DEFAULT_IMPACT_K,
    tpOrder: spec.tpOrder ?? 'market',
    makerFeeFrac: spec.makerFeeFrac ?? DEFAULT_MAKER_FEE_FRAC,
    liquidationFeeFrac: spec.liquidationFeeFrac ?? DEFAULT_LIQUIDATION_FEE_FRAC,
    margin: spec.margin ?? 'flat',
    notionalUsd: nominalMarginUsd(spec) * effectiveLeverage(spec),
  }
}

/** The intrabar mode of a run (missing: the bar rule, as before the setting existed). */
export const intrabarOf = (spec: RunSpec): IntrabarMode => spec.intrabar ?? 'bar'

/**
 * Equal specs give equal hashes whatever their key order. The JSON.stringify-like form
 * (docs/canonical-json.md): every hash already stored in result_requests was made with it.
 */
export function resultHash(spec: RunSpec, dataVersion: string): string {
  return createHash('sha256').update(canonicalJsonLikeStringify(spec)).update('\n').update(dataVersion).digest('hex')
}

/** The trade model's parameters of a run. */
export function tradeParamsOf(spec: RunSpec): TradeParams {
  return {
    direction: spec.direction,
    slPct: spec.slPct,
    tpPct: spec.tpPct,
    tpSource: spec.tpSource,
    trailingPct: spec.trailingPct,
    maxBars: spec.maxBars,
    leverage: effectiveLeverage(spec),
    feeFrac: spec.feeFrac,
    mmrFrac: DEFAULT_MMR_FRAC,
    marketType: spec.marketType,
    ...(spec.slippage !== undefined ? { execution: executionOf(spec) } : {}),
  }
}

/** The portfolio's settings of a run. */
export function portfolioOptionsOf(spec: RunSpec, coinCount: number): PortfolioOptions {
  const leverage = effectiveLeverage(spec)
  return { perCoinUsd: spec.perCoinUsd, maxConcurrent: spec.maxConcurrent, compounding: spec.compounding, leverage, coinCount, stopAtRuin: spec.stopAtRuin === true }
}

/** A run's date window on one coin's bars: null without bars or without a bar inside the dates. */
export function windowOf(spec: RunSpec, bars: Bars | undefined): BarWindow | null {
  if (!bars || bars.n === 0) return null
  return windowIndices(bars, spec.startDate ? parseDay(spec.startDate) : null, spec.endDate ? parseDay(spec.endDate) : null)
}

/** Problems of a request's dates that a schema cannot see: real calendar dates, start not after end. */
export function dateProblems(start: string | null, end: string | null): Problem[] {
  const out: Problem[] = []
  const s = start ? parseDay(start) : null
  const e = end ? parseDay(end) : null
  if (start && s === null) out.push({ loc: ['body', 'start_date'], msg: 'not a calendar date (YYYY-MM-DD)', input: start })
  if (end && e === null) out.push({ loc: ['body', 'end_date'], msg: 'not a calendar date (YYYY-MM-DD)', input: end })
  if (s !== null && e !== null && s > e) out.push({ loc: ['body', 'end_date'], msg: 'end_date is before start_date', input: end! })
  return out
}

/** The one date check of every run request: throws InvalidRequest naming each bad date. */
export function checkDates(start: string | null, end: string | null): void {
  const problems = dateProblems(start, end)
  if (problems.length) throw new InvalidRequest(problems)
}

/** The contract's universe accounting of a run. */
export interface UniverseAccounting {
  top_n_requested: number | null
  eligible_universe: number | null
  universe_capped: boolean | null
  coins_missing_data: number | null
}

/**
 * The coins of a run and its universe accounting: the explicit symbols (every one must be
 * in the store, else UnknownSymbols), or the top N of the eligible universe.
 */
export function resolveUniverse(spec: RunSpec, store: CandleStore, universe: Universe): { symbols: string[]; accounting: UniverseAccounting } {
  checkCrossData(spec, store)
  if (spec.symbols) {
    const unknown = spec.symbols.filter(s => !store.bars(s))
    if (unknown.length) throw new UnknownSymbols(unknown)
    return { symbols: spec.symbols, accounting: { top_n_requested: null, eligible_universe: null, universe_capped: null, coins_missing_data: null } }
  }
  const topN = spec.topN ?? DEFAULT_TOP_N
  const eligible = universe.eligible({ includeStablecoins: spec.includeStablecoins })
  const symbols = eligible.slice(0, topN).map(c => c.meta.symbol)
  return {
    symbols,
    accounting: {
      top_n_requested: topN,
      eligible_universe: eligible.length,
      universe_capped: eligible.length < topN,
      coins_missing_data: null, // filled once the window is known per coin
    },
  }
}

/**
 * A tree's leaves may read other coins and higher timeframes (docs/conditions.md): a
 * timeframe below the run's, or a coin the store does not hold, is a 422 naming the place.
 */
export function checkCrossData(spec: RunSpec, store: CandleStore): void {
  const has = (s: string) => store.bars(s) !== undefined
  const problems = [
    ...crossDataProblems(spec.strategy.entry, ['body', 'entry'], spec.timeframe, has),
    ...crossDataProblems(spec.strategy.exit_conditions, ['body', 'exit_conditions'], spec.timeframe, has),
  ]
  if (problems.length) throw new InvalidRequest(problems)
}

/** The registry strategy `id` (UnknownStrategy when there is none). */
export function registryStrategy(id: string): StrategyDef {
  const s = getStrategy(id)
  if (!s) throw new UnknownStrategy(id, listStrategies().map(x => x.id))
  return s
}

/**
 * A run of registry strategy `s` at its own defaults (top 50, 1H, futures, leverage 1,
 * 60 USD per coin, fixed margin), with `over` replacing fields: what /simulate,
 * /simulate/coin, compare and the jobs run.
 */
export function registrySpec(s: StrategyDef, over: Partial<RunSpec>): RunSpec {
  return {
    kind: 'simulate',
    name: s.name,
    strategyId: s.id,
    direction: s.direction,
    directionSource: 'request',
    strategy: { indicators: s.indicators, entry: s.entry, exit_conditions: s.exit_conditions ?? null },
    avoidHours: [],
    avoidMonths: null,
    minVolRegime: null,
    slPct: s.sl_pct,
    tpPct: s.tp_pct,
    tpSource: 'custom_pct',
    trailingPct: null,
    maxBars: s.max_bars,
    marketType: 'futures',
    leverage: 1,
    feeFrac: DEFAULT_FEE_FRAC.futures,
    timeframe: '1H',
    startDate: null,
    endDate: null,
    topN: null,
    symbols: null,
    includeStablecoins: false,
    perCoinUsd: 60,
    maxConcurrent: 100,
    compounding: false,
    stopAtRuin: true,
    ...DEFAULT_EXECUTION,
    ...over,
  }
}
