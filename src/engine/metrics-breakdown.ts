/**
 * Breakdowns of a trade list: result buckets, P&L distribution, yearly / monthly stats
 * and per-coin results. Formulas: docs/metrics.md.
 */
import { DAY_MS } from '../time'
import { yearMonthOfDay } from './calendar'
import type { TradeTable } from './trade-table'
import { EXIT_REASONS, type ExitReason, type ResultBucket } from './types'

/** Profit factor reported when there is no losing trade (or the ratio exceeds it). */
export const PROFIT_FACTOR_CAP = 999

/**
 * The contract's three buckets: `tp` and `sl` as named, `liquidation` counts as `sl`,
 * `timeout`, `end_of_data` and `delisted` as `timeout`; `trailing` and `signal` exits (the
 * strategy's own way of taking profit or cutting a loss) count as `tp` when the trade's
 * net P&L is positive and as `sl` otherwise.
 */
export function resultBucket(exitReason: ExitReason, pnlPct: number): ResultBucket {
  switch (exitReason) {
    case 'tp':
      return 'tp'
    case 'sl':
    case 'liquidation':
      return 'sl'
    case 'timeout':
    case 'end_of_data':
    case 'delisted':
      return 'timeout'
    case 'trailing':
    case 'signal':
      return pnlPct > 0 ? 'tp' : 'sl'
  }
}

/** Trades by the reason they closed, one count per exit reason: they add up to the trades. */
export type ExitCounts = { [R in ExitReason as `${R}_count`]: number }

/** The counts of `byCode[from + code]` for each exit reason code (its index in EXIT_REASONS). */
export function exitCountsOf(byCode: ArrayLike<number>, from = 0): ExitCounts {
  // one literal in EXIT_REASONS' order (a run's answer makes one per coin and period: keys
  // written one by one from their names cost several times more)
  return {
    tp_count: byCode[from],
    sl_count: byCode[from + 1],
    trailing_count: byCode[from + 2],
    signal_count: byCode[from + 3],
    timeout_count: byCode[from + 4],
    liquidation_count: byCode[from + 5],
    end_of_data_count: byCode[from + 6],
    delisted_count: byCode[from + 7],
  }
}
// the literal above follows this order: a reason added or moved must be added or moved there
if (EXIT_REASONS.join() !== 'tp,sl,trailing,signal,timeout,liquidation,end_of_data,delisted') throw new Error('exitCountsOf: EXIT_REASONS changed')

const N_REASONS = EXIT_REASONS.length

export interface ProfitFactor {
  value: number
  /** true when the value is PROFIT_FACTOR_CAP because there was no loss to divide by */
  capped: boolean
}

/** gross profit / gross loss (a magnitude); capped at PROFIT_FACTOR_CAP; 0 with no profit. */
export function profitFactorOf(grossWin: number, grossLoss: number): ProfitFactor {
  if (grossWin === 0) return { value: 0, capped: false }
  if (grossLoss === 0 || grossWin / grossLoss > PROFIT_FACTOR_CAP) return { value: PROFIT_FACTOR_CAP, capped: true }
  return { value: grossWin / grossLoss, capped: false }
}

/** Gross profit and gross loss (a magnitude) of net P&L values. */
export function grossSums(pnlPct: ArrayLike<number>): { grossWin: number; grossLoss: number } {
  let grossWin = 0
  let grossLoss = 0
  for (let i = 0; i < pnlPct.length; i++) {
    const x = pnlPct[i]
    if (x > 0) grossWin += x
    else grossLoss -= x
  }
  return { grossWin, grossLoss }
}

/**
 * total_return_pct, win_rate and profit_factor of the rows `rows` of `pnlPct`, as metrics.ts
 * computes them (the sums run in the order of `rows`): the bar rule's figures of `rule_bias`
 * and a point-in-time run's twin on today's coins (engine/run.ts headlineFigures).
 */
export interface PnlFigures {
  total_return_pct: number
  win_rate: number
  profit_factor: number
}

export function pnlFigures(pnlPct: Float64Array, rows: Int32Array): PnlFigures {
  const p = new Float64Array(rows.length)
  let sum = 0
  let wins = 0
  for (let k = 0; k < rows.length; k++) {
    p[k] = pnlPct[rows[k]]
    sum += p[k]
    if (p[k] > 0) wins++
  }
  return { total_return_pct: sum, win_rate: rows.length > 0 ? (100 * wins) / rows.length : 0, profit_factor: profitFactor(p).value }
}

/** Profit factor of net P&L values (see profitFactorOf): the one every response reports. */
export function profitFactor(pnlPct: ArrayLike<number>): ProfitFactor {
  const { grossWin, grossLoss } = grossSums(pnlPct)
  return profitFactorOf(grossWin, grossLoss)
}

/**
 * The same ratio without the cap: +Infinity with wins and no losses, 0 with no wins. The
 * bootstrap needs it to tell an unbounded interval from a wide one; nothing reports it.
 */
export function uncappedProfitFactor(pnlPct: ArrayLike<number>): number {
  const { grossWin, grossLoss } = grossSums(pnlPct)
  if (grossLoss > 0) return grossWin / grossLoss
  return grossWin > 0 ? Infinity : 0
}

/** Running sums of groups of trades (periods, coins), one slot per group. */
interface GroupTallies {
  trades: Float64Array
  wins: Float64Array
  sum: Float64Array
  grossWin: Float64Array
  grossLoss: Float64Array
  /** trades by exit reason code: N_REASONS slots per group */
  exits: Float64Array
}

/** Sums per group of the trades, group[i] naming trade i's group (0 … groups − 1), in trade order. */
function tallyGroups(group: Int32Array, groups: number, pnlPct: Float64Array, exitReason: Uint8Array): GroupTallies {
  const g: GroupTallies = {
    trades: new Float64Array(groups),
    wins: new Float64Array(groups),
    sum: new Float64Array(groups),
    grossWin: new Float64Array(groups),
    grossLoss: new Float64Array(groups),
    exits: new Float64Array(N_REASONS * groups),
  }
  for (let i = 0; i < group.length; i++) {
    const k = group[i]
    const x = pnlPct[i]
    g.trades[k]++
    g.sum[k] += x
    if (x > 0) {
      g.wins[k]++
      g.grossWin[k] += x
    } else g.grossLoss[k] -= x
    g.exits[N_REASONS * k + exitReason[i]]++
  }
  return g
}

const winRateOf = (g: GroupTallies, k: number) => (g.trades[k] > 0 ? (100 * g.wins[k]) / g.trades[k] : 0)

/** Lower edges of the P&L buckets after the first, % of margin; a bucket is [lo, hi). */
export const PNL_BUCKET_EDGES: readonly number[] = [-50, -20, -10, -5, -2, 0, 2, 5, 10, 20, 50]

export const PNL_BUCKET_LABELS: readonly string[] = [
  '< -50%',
  ...PNL_BUCKET_EDGES.slice(0, -1).map((lo, i) => `${lo}% to ${PNL_BUCKET_EDGES[i + 1]}%`),
  `>= ${PNL_BUCKET_EDGES[PNL_BUCKET_EDGES.length - 1]}%`,
]

export function pnlDistribution(pnlPct: ArrayLike<number>): number[] {
  const counts = new Array<number>(PNL_BUCKET_LABELS.length).fill(0)
  for (let i = 0; i < pnlPct.length; i++) {
    const x = pnlPct[i]
    let b = 0
    while (b < PNL_BUCKET_EDGES.length && x >= PNL_BUCKET_EDGES[b]) b++
    counts[b]++
  }
  return counts
}

export interface PeriodStat {
  /** `YYYY` or `YYYY-MM` (UTC) of the trades' exit instants */
  period: string
  trades: number
  win_rate: number
  profit_factor: number
  /** summed net % of the period's trades */
  return_pct: number
}

function periodStats(t: TradeTable, monthly: boolean): PeriodStat[] {
  if (t.n === 0) return []
  // year × 100 + month of each UTC day the exits span, filled in day order (yearMonthOfDay is
  // fast on consecutive days, slow on scattered ones), then one lookup per trade
  let minMs = Infinity
  let maxMs = -Infinity
  for (let i = 0; i < t.n; i++) {
    const x = t.exitMs[i]
    if (x < minMs) minMs = x
    if (x > maxMs) maxMs = x
  }
  const day0 = Math.floor(minMs / DAY_MS)
  const ymOfDay = new Int32Array(Math.floor(maxMs / DAY_MS) - day0 + 1)
  for (let d = 0; d < ymOfDay.length; d++) ymOfDay[d] = yearMonthOfDay(day0 + d)
  const firstYear = Math.floor(ymOfDay[0] / 100)
  // groups: months or years counted from the first exit's year
  const month = new Int32Array(t.n)
  let groups = 0
  for (let i = 0; i < t.n; i++) {
    const ym = ymOfDay[Math.floor(t.exitMs[i] / DAY_MS) - day0]
    const k = monthly ? (Math.floor(ym / 100) - firstYear) * 12 + (ym % 100) - 1 : Math.floor(ym / 100) - firstYear
    month[i] = k
    if (k + 1 > groups) groups = k + 1
  }
  const g = tallyGroups(month, groups, t.pnlPct, t.exitReason)
  const out: PeriodStat[] = []
  for (let k = 0; k < groups; k++) {
    if (g.trades[k] === 0) continue
    const year = monthly ? firstYear + Math.floor(k / 12) : firstYear + k
    const period = monthly ? `${year}-${String((k % 12) + 1).padStart(2, '0')}` : String(year)
    out.push({ period, trades: g.trades[k], win_rate: winRateOf(g, k), profit_factor: profitFactorOf(g.grossWin[k], g.grossLoss[k]).value, return_pct: g.sum[k] })
  }
  return out
}

/** Per year of the exit instants (UTC), in order. */
export function yearlyStats(t: TradeTable): PeriodStat[] {
  return periodStats(t, false)
}

/** Per month of the exit instants (UTC), in order. */
export function monthlyStats(t: TradeTable): PeriodStat[] {
  return periodStats(t, true)
}

/** The contract's CoinResult, with every exit count. */
export interface CoinResult extends ExitCounts {
  symbol: string
  trades: number
  wins: number
  losses: number
  win_rate: number
  profit_factor: number
  total_return_pct: number
  avg_pnl_pct: number
}

/** One CoinResult per coin of the table, in the table's coin order (coins without trades get a row of zeros). */
export function coinResults(t: TradeTable): CoinResult[] {
  const g = tallyGroups(t.coin, t.symbols.length, t.pnlPct, t.exitReason)
  return t.symbols.map((symbol, c) => ({
    symbol,
    trades: g.trades[c],
    wins: g.wins[c],
    losses: g.trades[c] - g.wins[c],
    win_rate: winRateOf(g, c),
    profit_factor: profitFactorOf(g.grossWin[c], g.grossLoss[c]).value,
    total_return_pct: g.sum[c],
    avg_pnl_pct: g.trades[c] > 0 ? g.sum[c] / g.trades[c] : 0,
    ...exitCountsOf(g.exits, N_REASONS * c),
  }))
}
