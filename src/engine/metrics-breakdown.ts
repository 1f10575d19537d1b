/**
 * Breakdowns of a trade list: result buckets, P&L distribution, yearly / monthly stats
 * and per-coin results. Formulas: docs/metrics.md.
 */
import { yearMonthOfMs } from './calendar'
import { EXIT_REASONS, type TradeTable } from './trade-table'
import type { ExitReason, ResultBucket } from './types'

/** Profit factor reported when there is no losing trade (or the ratio exceeds it). */
export const PROFIT_FACTOR_CAP = 999

/**
 * The contract's three buckets: `tp` and `sl` as named, `liquidation` counts as `sl`,
 * `timeout` and `end_of_data` as `timeout`; `trailing` and `signal` exits (the
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
      return 'timeout'
    case 'trailing':
    case 'signal':
      return pnlPct > 0 ? 'tp' : 'sl'
  }
}

/** Bucket codes: 0 tp, 1 sl, 2 timeout. */
export const BUCKETS: readonly ResultBucket[] = ['tp', 'sl', 'timeout']
// per exit-reason code: its bucket, or −1 when the net P&L's sign decides
const BUCKET_OF_REASON = Int8Array.from(EXIT_REASONS, r => (r === 'trailing' || r === 'signal' ? -1 : BUCKETS.indexOf(resultBucket(r, 0))))

/** resultBucket over the table's codes: 0 tp, 1 sl, 2 timeout. */
export function bucketCode(reasonCode: number, pnlPct: number): number {
  const b = BUCKET_OF_REASON[reasonCode]
  return b >= 0 ? b : pnlPct > 0 ? 0 : 1
}

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

/** Profit factor of net P&L values (see profitFactorOf). */
export function profitFactor(pnlPct: ArrayLike<number>): ProfitFactor {
  const { grossWin, grossLoss } = grossSums(pnlPct)
  return profitFactorOf(grossWin, grossLoss)
}

/** Running sums of a group of trades (a period, a coin). */
class TradeTally {
  trades = 0
  wins = 0
  sum = 0
  grossWin = 0
  grossLoss = 0
  /** by bucket code */
  buckets = [0, 0, 0]

  add(pnlPct: number, bucket: number): void {
    this.trades++
    this.sum += pnlPct
    if (pnlPct > 0) {
      this.wins++
      this.grossWin += pnlPct
    } else this.grossLoss -= pnlPct
    this.buckets[bucket]++
  }

  get winRate(): number {
    return this.trades > 0 ? (100 * this.wins) / this.trades : 0
  }

  get profitFactor(): number {
    return profitFactorOf(this.grossWin, this.grossLoss).value
  }
}

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
  const tallies = new Map<number, TradeTally>()
  let lastKey = NaN
  let last: TradeTally | undefined
  for (let i = 0; i < t.n; i++) {
    const ym = yearMonthOfMs(t.exitMs[i])
    const key = monthly ? ym : Math.floor(ym / 100)
    if (key !== lastKey || last === undefined) {
      lastKey = key
      last = tallies.get(key)
      if (last === undefined) tallies.set(key, (last = new TradeTally()))
    }
    last.add(t.pnlPct[i], bucketCode(t.exitReason[i], t.pnlPct[i]))
  }
  return [...tallies.keys()]
    .sort((a, b) => a - b)
    .map((key) => {
      const g = tallies.get(key)!
      const period = monthly ? `${Math.floor(key / 100)}-${String(key % 100).padStart(2, '0')}` : String(key)
      return { period, trades: g.trades, win_rate: g.winRate, profit_factor: g.profitFactor, return_pct: g.sum }
    })
}

export function yearlyStats(t: TradeTable): PeriodStat[] {
  return periodStats(t, false)
}

export function monthlyStats(t: TradeTable): PeriodStat[] {
  return periodStats(t, true)
}

/** The contract's CoinResult. */
export interface CoinResult {
  symbol: string
  trades: number
  wins: number
  losses: number
  win_rate: number
  profit_factor: number
  total_return_pct: number
  avg_pnl_pct: number
  tp_count: number
  sl_count: number
  timeout_count: number
}

/** One CoinResult per coin of the table, in the table's coin order (coins without trades get a row of zeros). */
export function coinResults(t: TradeTable): CoinResult[] {
  const tallies = t.symbols.map(() => new TradeTally())
  for (let i = 0; i < t.n; i++) tallies[t.coin[i]].add(t.pnlPct[i], bucketCode(t.exitReason[i], t.pnlPct[i]))
  return tallies.map((g, c) => ({
    symbol: t.symbols[c],
    trades: g.trades,
    wins: g.wins,
    losses: g.trades - g.wins,
    win_rate: g.winRate,
    profit_factor: g.profitFactor,
    total_return_pct: g.sum,
    avg_pnl_pct: g.trades > 0 ? g.sum / g.trades : 0,
    tp_count: g.buckets[0],
    sl_count: g.buckets[1],
    timeout_count: g.buckets[2],
  }))
}
