/**
 * A run as the contract shows it: from its booked trades (engine/run.ts) to the response
 * body of /backtest and /simulate — trades and curves as items, hold curves, warnings,
 * universe accounting — built when first read, in steps that pause on the main thread.
 */
import { curveDayOf, type EquityPoint } from '../engine/equity-curve'
import { holdCurve, holdReturnPct } from '../engine/hold-curve'
import type { BacktestMetrics } from '../engine/metrics'
import type { PortfolioResult } from '../engine/portfolio'
import { reliabilityWarning, type ReliabilityCheck } from '../engine/reliability'
import { daySpan, type Booked, type DaySpan } from '../engine/run'
import { finish, type Steps } from '../engine/steps'
import type { TradeTable } from '../engine/trade-table'
import { EXIT_REASONS } from '../engine/types'
import type { CandleStore } from '../market/candle-store'
import { isoDay, isoInstant } from '../time'
import type { CoinOutcome } from './compute/coin-tasks'
import { executionReport, markHoursMissing, type ExecutionReport } from './execution-report'
import { portfolioOptionsOf, type RunSpec, type UniverseAccounting } from './spec'
import type { Survivorship, UniversePlan } from './universe-plan'
import type { IntrabarBlock, RunResultBody } from './result-model'
import { statisticsFields, type StatisticsFields } from './statistics'
import { stepped } from './yield'
import { roundTo } from '../round'

/** trades listed in a JSON response (the most recent ones); /export/csv has every trade */
export const MAX_TRADES_IN_RESPONSE = 1000

export interface RunOutcome {
  spec: RunSpec
  symbols: string[]
  coins: CoinOutcome[]
  accounting: UniverseAccounting
  indicatorsUsed: string[]
  conditionsCount: number
  warnings: string[]
  /** a point-in-time run's plan and its survivorship figures (null: today's universe or explicit symbols) */
  universe: { plan: UniversePlan; survivorship: Survivorship } | null
  /** how exits inside bars were found (absent: a run made before the setting, or a path that does not say) */
  intrabar?: IntrabarBlock
  /** the capacity block when known: the cached result's of the same run and trades (RunService.bookOutcome), not re-booked at every size again */
  knownCapacity?: ExecutionReport['capacity']
}

const round = (x: number, d = 6) => (Number.isFinite(x) ? roundTo(x, d) : 0)

/** The response's `data_range`: "YYYY-MM-DD to YYYY-MM-DD" of a day span. */
export function dataRange(span: DaySpan | null): string {
  return span ? `${isoDay(span.fromDayMs)} to ${isoDay(span.toDayMs)}` : 'no data in window'
}

/** Row i of a run's taken trades as the answer lists it (its trades, /simulate/compare's, the CSV export). */
export function tradeItemAt(t: PortfolioResult['trades'], i: number) {
  return {
    symbol: t.symbols[t.coin[i]],
    direction: t.direction,
    entry_time: isoInstant(t.entryMs[i]),
    exit_time: isoInstant(t.exitMs[i]),
    entry_price: t.entryPrice[i],
    exit_price: t.exitPrice[i],
    bars_held: t.barsHeld[i],
    exit_reason: EXIT_REASONS[t.exitReason[i]],
    pnl_pct: round(t.pnlPct[i]),
    pnl_usd: round(t.pnlUsd[i]),
    fee_pct: round(t.feePct[i]),
    funding_pct: round(t.fundingPct[i]),
    sl_tp_same_bar: t.slTpSameBar[i] === 1,
    exit_resolution: t.resolution[i] !== 0 ? ('detail' as const) : ('bar' as const),
    slippage_pct: round(t.slippagePct[i]),
  }
}

export type TradeItem = ReturnType<typeof tradeItemAt>

/**
 * The taken trades from the `from`-th in entry order, as listed: read from the table's
 * columns, with no trade object made in between (a run lists a thousand trades).
 */
export function tradeItemsFrom(p: PortfolioResult, from = 0): TradeItem[] {
  const order = p.entryOrder
  const out: TradeItem[] = new Array(Math.max(0, order.length - from))
  for (let k = from; k < order.length; k++) out[k - from] = tradeItemAt(p.trades, order[k])
  return out
}

export function equityItem(p: EquityPoint) {
  return { t: isoDay(p.tMs), equity_usd: round(p.equityUsd, 4), return_pct: round(p.returnPct, 4), drawdown_pct: round(p.drawdownPct, 4) }
}

/** The response body a run builds itself: all but its statistics, compute time and hash (added when it is answered). */
export type RunBody = Omit<RunResultBody, keyof StatisticsFields | 'compute_time_ms' | 'result_hash'>

export interface AssembledRun {
  portfolio: PortfolioResult
  metrics: BacktestMetrics
  checks: ReliabilityCheck[]
  /** the response body, built on first read */
  body: RunBody
  /** build the body ahead of its first read, pausing between its parts */
  prepareBody(): Promise<void>
}

/** The result of a run from its booked core; the response body is built when first read. */
export function assembledOf(outcome: RunOutcome & { trades?: TradeTable }, core: Booked, store: CandleStore): AssembledRun {
  const { portfolio, metrics, checks } = core
  // the body reads the portfolio's trades, never every coin's (a run's outcome carries no
  // table): a result the cache keeps must not hold one handed in with it anyway (a new
  // tree's 63,700 rows and their marks, about ten times its accepted ones), whose memory the
  // next run can then use again
  const { trades: _everyCoin, ...run } = outcome
  // the response body is built when first read: runs that only need metrics (compare) skip it
  let body: RunBody | null = null
  return {
    portfolio,
    metrics,
    checks,
    get body() {
      return (body ??= finish(bodySteps(run, core, store)))
    },
    async prepareBody() {
      if (body === null) {
        const built = await stepped(bodySteps(run, core, store))
        body ??= built
      }
    },
  }
}

/** A run's BTC and ETH buy-and-hold curves, as points and as the body's items. */
interface HoldCurves {
  btc: EquityPoint[]
  eth: EquityPoint[]
  btcItems: ReturnType<typeof equityItem>[]
  ethItems: ReturnType<typeof equityItem>[]
}

/**
 * The hold curves of the last few (store version, days, capital) asked for, per store: a
 * function of those alone (not of the run's trades), the same for every run over the same
 * days, and about half a millisecond of the main thread a run to make again. Nothing writes them.
 */
const holdCurvesMade = new WeakMap<CandleStore, Map<string, HoldCurves>>()
const HOLD_CURVES_KEPT = 16

/** The BTC and ETH buy-and-hold curves over the run's days (empty without the coin or a span). */
function holdCurves(store: CandleStore, span: DaySpan | null, initialCapitalUsd: number): HoldCurves {
  let made = holdCurvesMade.get(store)
  if (made === undefined) holdCurvesMade.set(store, (made = new Map()))
  // a stand-in store without a version (a test's) is never served kept curves
  const version: unknown = store.version
  const key = span && typeof version === 'number' ? `${version}|${span.fromDayMs}|${span.toDayMs}|${initialCapitalUsd}` : null
  const kept = key === null ? undefined : made.get(key)
  if (kept) return kept
  const hold = (sym: string) => {
    const b = store.bars(sym)
    return b && span ? holdCurve(b, span.fromDayMs, span.toDayMs, initialCapitalUsd) : []
  }
  const btc = hold('BTCUSDT')
  const eth = hold('ETHUSDT')
  const curves = { btc, eth, btcItems: btc.map(equityItem), ethItems: eth.map(equityItem) }
  if (key !== null) {
    if (made.size >= HOLD_CURVES_KEPT) made.delete(made.keys().next().value!)
    made.set(key, curves)
  }
  return curves
}

/** What the answer says of a ruined portfolio: when, and what became of the entries after it. */
function ruinWarning(portfolio: PortfolioResult, stopAtRuin: boolean): string | null {
  if (portfolio.ruinedAtMs === null) return null
  const at = isoInstant(portfolio.ruinedAtMs)
  return stopAtRuin
    ? `ruined: the portfolio's equity reached zero at ${at}; no trade was opened from then on (${portfolio.entriesAfterRuin} entries not taken; stop_at_ruin)`
    : `ruined: the portfolio's equity reached zero at ${at}; stop_at_ruin is false, so trades went on after it as if fresh capital were added (fixed margin) or whenever the equity was above zero again (compounding)`
}

/** The run's warnings, then the response's own: ruin, a shortened trade list, a capped profit factor, stand-in funding. */
/** Bars (and coins) where a condition's data was absent inside the run's window: docs/conditions.md. */
export function absentBarsOf(coins: readonly CoinOutcome[]): { bars: number; coins: number } {
  let bars = 0
  let n = 0
  for (const c of coins)
    if (c.absentBars) {
      bars += c.absentBars
      n++
    }
  return { bars, coins: n }
}

function warningsOf(run: Pick<RunOutcome, 'warnings' | 'spec' | 'coins'>, portfolio: PortfolioResult, metrics: BacktestMetrics, taken: number, report: ExecutionReport, store: CandleStore): string[] {
  const warnings = [...run.warnings]
  const ruin = ruinWarning(portfolio, stopAtRuinOf(run.spec))
  if (ruin) warnings.push(ruin)
  if (taken > MAX_TRADES_IN_RESPONSE)
    warnings.push(`trades lists the ${MAX_TRADES_IN_RESPONSE} most recent of ${taken} trades; GET /export/csv?hash=<result_hash> has all of them`)
  if (metrics.profit_factor_capped) warnings.push('profit_factor is capped: no losing trade to divide by')
  const absent = absentBarsOf(run.coins)
  if (absent.bars > 0)
    warnings.push(
      `conditions: data a leaf reads (another coin, a higher timeframe, funding, basis or open interest) was absent on ${absent.bars} bars of ${absent.coins} coin${absent.coins === 1 ? '' : 's'}; those leaves were false there (condition_data_absent_bars)`,
    )
  if (metrics.funding_coverage_pct !== null && metrics.funding_coverage_pct < 100)
    warnings.push(`funding: ${round(metrics.funding_coverage_pct, 1)}% of the charged events are real settlements; the rest use the 0.01%-per-8h stand-in`)
  const ex = report.execution
  if (ex && ex.margin === 'brackets' && run.spec.marketType === 'futures' && ex.coins_flat_margin.length > 0)
    warnings.push(`margin: ${ex.coins_flat_margin.length} coin(s) have no leverage brackets in the store and use the flat 0.5% maintenance rate: ${ex.coins_flat_margin.slice(0, 10).join(', ')}${ex.coins_flat_margin.length > 10 ? ', …' : ''} (execution.coins_flat_margin)`)
  if (ex && ex.liquidation_price_source === 'mixed')
    warnings.push(`liquidation: ${ex.coins_mark_price.length} coin(s) were tested on the mark price, the others on the last price (no mark-price candles in the store; execution.coins_mark_price)`)
  const gap = ex && ex.coins_mark_price.length > 0 ? markHoursMissing(run.spec, ex.coins_mark_price, run.coins, store) : null
  if (gap && gap.hours > 0)
    warnings.push(`liquidation: ${gap.hours} hour(s) of ${gap.coins} coin(s) tested on the mark price have no mark-price candle in the window; their bars were tested on the last price`)
  if (ex && ex.fills_without_estimate > 0)
    warnings.push(`slippage: ${ex.fills_without_estimate} market fill(s) had fewer than 5 days of candles before them and were charged no slippage`)
  return warnings
}

/** Whether the run stopped at ruin (a request stored before the setting existed did not). */
const stopAtRuinOf = (spec: RunSpec) => portfolioOptionsOf(spec, 1).stopAtRuin === true

/** The equity curve's point of the day the portfolio was ruined; null when it was not. */
function ruinIndex(portfolio: PortfolioResult): number | null {
  const curve = portfolio.equityCurve
  if (portfolio.ruinedAtMs === null || curve.length === 0) return null
  return curveDayOf(portfolio.ruinedAtMs, curve[0].tMs, curve.length)
}

/** What was run: the request's strategy, exits, market and costs as the response echoes them. */
function settingsOf(run: RunOutcome) {
  const { spec } = run
  return {
    name: spec.name,
    direction: spec.direction,
    direction_source: spec.directionSource,
    executed: true,
    is_valid: true,
    validation_errors: [],
    sl_pct: spec.slPct,
    tp_pct: spec.tpPct,
    tp_source: spec.tpSource,
    trailing_pct: spec.trailingPct,
    max_bars: spec.maxBars,
    timeframe: spec.timeframe,
    market_type: spec.marketType,
    fee_pct: spec.feeFrac,
    indicators_used: run.indicatorsUsed,
    conditions_count: run.conditionsCount,
  }
}

/** Which universe the run used (null for explicit symbols), its rebalance and its survivorship block. */
function universeFields(run: RunOutcome) {
  const { spec } = run
  return {
    universe_mode: spec.symbols ? null : spec.universe === 'point_in_time' ? ('point_in_time' as const) : ('current' as const),
    rebalance: run.universe ? run.universe.plan.rebalance : null,
    survivorship: run.universe ? run.universe.survivorship : null,
  }
}

/** The response body in steps: trade items, then the curves, then the whole (pausing between). */
function* bodySteps(run: RunOutcome, core: Booked, store: CandleStore): Steps<RunBody> {
  const { spec } = run
  const { portfolio, metrics, checks } = core
  const span = daySpan(run.coins)
  const { btc, eth, btcItems: btcCurve, ethItems: ethCurve } = holdCurves(store, span, portfolio.initialCapitalUsd)
  const taken = portfolio.trades.n
  const report = executionReport(spec, run.symbols, portfolio, store, run.knownCapacity)
  const warnings = warningsOf(run, portfolio, metrics, taken, report, store)
  const trades = tradeItemsFrom(portfolio, Math.max(0, taken - MAX_TRADES_IN_RESPONSE))
  yield
  const equityCurve = portfolio.equityCurve.map(equityItem)
  yield
  const { profit_factor_capped, funding_events, funding_events_real, funding_coverage_pct, annualized_return_pct, ...contractMetrics } = metrics
  return {
    ...settingsOf(run),
    ...contractMetrics,
    profit_factor_capped,
    annualized_return_pct,
    funding_events,
    funding_events_real,
    funding_coverage_pct,
    initial_capital_usd: portfolio.initialCapitalUsd,
    compounding: spec.compounding,
    per_coin_usd: spec.perCoinUsd,
    leverage: portfolioOptionsOf(spec, run.symbols.length).leverage,
    max_concurrent_positions: spec.maxConcurrent,
    stop_at_ruin: stopAtRuinOf(spec),
    ruined_at: portfolio.ruinedAtMs === null ? null : isoInstant(portfolio.ruinedAtMs),
    positions_skipped: portfolio.positionsSkipped,
    ...report,
    condition_data_absent_bars: absentBarsOf(run.coins).bars,
    coins_used: run.symbols.length,
    data_range: dataRange(span),
    ...run.accounting,
    ...universeFields(run),
    btc_hold_return_pct: round(holdReturnPct(btc), 4),
    eth_hold_return_pct: round(holdReturnPct(eth), 4),
    equity_curve: equityCurve,
    btc_hold_curve: btcCurve,
    eth_hold_curve: ethCurve,
    trades,
    reliability_checks: checks,
    reliability_warning: reliabilityWarning(checks),
    ruin_index: ruinIndex(portfolio),
    warnings,
    ...(run.intrabar ? { intrabar: run.intrabar } : {}),
  }
}

/** A run body's `execution`, `costs` and `capacity` (execution-report.ts), for the answers that carry them beside their own fields (/simulate/coin, validate). */
export function executionOf(body: RunBody): Pick<RunBody, 'execution' | 'costs' | 'capacity'> {
  return { execution: body.execution, costs: body.costs, capacity: body.capacity }
}

/** A finished run: its spec and coins, its booked and presented result, its statistics once computed. */
export interface RunResult {
  hash: string
  spec: RunSpec
  symbols: string[]
  assembled: AssembledRun
  /** null until asked for: runs that only need metrics (compare, coin) skip them */
  statistics: StatisticsFields | null
  /**
   * The trials and the accepted trades' digest (statistics-inputs.ts columnsDigest) of a run
   * booked with its statistics: the same run computed again (no-cache) whose key comes out the
   * same reuses this one's statistics and its bar rule's figures (RunService.bookOutcome).
   */
  tradesKey?: string
  computeMs: number
}

/** The response body of a finished run (cached results get their own compute time; statistics not computed read as none). */
export function responseBody(r: RunResult): RunResultBody {
  return { ...r.assembled.body, ...(r.statistics ?? statisticsFields(null)), compute_time_ms: r.computeMs, result_hash: r.hash }
}
