/**
 * What the statistics of a run are computed on, and how much of it: the accepted trades'
 * columns and per-coin sums, the coins the random-entry null tests, resample and
 * simulation counts, seeds and the number of trials. Pure functions and constants; the
 * orchestration on the workers is statistics.ts. docs/statistics.md, "Statistics of a run".
 */
import { createHash } from 'node:crypto'
import { Mulberry32 } from '../engine/random'
import type { TradeTable } from '../engine/trade-table'
import { listStrategies } from '../strategies/registry'
import type { BootstrapPayload } from './compute/research-tasks'
import type { RunSpec } from './spec'

/** The request seed of a result: the first 32 bits of its hash (docs/statistics.md, "Seeds"). */
export function seedOfHash(hash: string): number {
  return Number.parseInt(hash.slice(0, 8), 16) >>> 0
}

/**
 * Random-entry simulations per result, on at most MC_MAX_COINS coins. Each simulation
 * draws as many trades per coin as the run took there; a trade's outcome is computed once
 * per entry bar and shared by the simulations, so the cost is about coins × min(bars,
 * simulations × trades per coin) trade walks (bench/research.ts). 100 resolves p-values
 * down to 1/101 ≈ 0.0099, inside the grade's best tier (≤ 0.01); /simulate/validate runs
 * as many as the request asks (default 1000).
 */
export const MC_SIMULATIONS = 100
/**
 * The null tests a seeded random sample of the run's coins with trades: coins in a random
 * order (fixed by the result hash) while their trades stay within MC_MAX_TRADES (the first
 * coin always), at most MC_MAX_COINS. The cost is about simulations × tested trades trade
 * walks; on all of a 535-coin run's trades it would cost several times the run itself.
 * 500 keeps the statistics of a 535-coin run within 30 % of the run's time on two cores
 * (issue 6; the figures: docs/benchmarks.md, "Research statistics on runs"); every
 * p-value still resolves to 1/101.
 */
export const MC_MAX_COINS = 50
export const MC_MAX_TRADES = 500
/**
 * Bootstrap resamples: 1000, fewer for very many values so that resamples × values stays
 * within BOOTSTRAP_MAX_DRAWS (never below BOOTSTRAP_MIN_RESAMPLES); MetricCI reports the
 * number used. Beyond BOOTSTRAP_MAX_DRAWS / BOOTSTRAP_MIN_RESAMPLES values (20,000 trades)
 * the profit factor's interval comes from the normal approximation of its two resampled
 * sums instead (profitFactorNormalCI, 1000 draws): accurate at that size, and a thousand
 * draws give steadier percentiles than a hundred resamples.
 */
export const BOOTSTRAP_RESAMPLES = 1000
export const BOOTSTRAP_MIN_RESAMPLES = 100
export const BOOTSTRAP_MAX_DRAWS = 2_000_000
export const NORMAL_SUMS_ABOVE = BOOTSTRAP_MAX_DRAWS / BOOTSTRAP_MIN_RESAMPLES

export function bootstrapResamples(n: number): number {
  return Math.max(BOOTSTRAP_MIN_RESAMPLES, Math.min(BOOTSTRAP_RESAMPLES, Math.floor(BOOTSTRAP_MAX_DRAWS / Math.max(1, n))))
}

/** The bootstrap task of a run's profit-factor interval (method and resamples by sample size). */
export function profitFactorCiPayload(pnlPct: Float64Array, seed: number): BootstrapPayload {
  const normal = pnlPct.length > NORMAL_SUMS_ABOVE
  return {
    values: pnlPct,
    statistic: 'profit_factor',
    resamples: normal ? BOOTSTRAP_RESAMPLES : bootstrapResamples(pnlPct.length),
    seed,
    method: normal ? 'normal-sums' : 'percentile',
  }
}
export const WALK_FORWARD_FOLDS = 5

/**
 * The configurations the service exposes for the choice a result represents: every
 * registry strategy for /simulate (the user picked one of them), 1 for a custom /backtest
 * tree (the service offered nothing to pick from; the user's own tries are unknown, which
 * the DSR caveat and the sensitivity table cover). The SL/TP optimisation uses its grid size.
 */
export function nTrialsOf(spec: RunSpec): number {
  return spec.kind === 'simulate' ? listStrategies().length : 1
}

export interface CoinSum {
  symbol: string
  index: number
  trades: number
  sum: number
}

/** The columns of the run's accepted trades the statistics read, in entry order. */
export interface TradeColumns {
  pnlPct: Float64Array
  entryMs: Float64Array
  exitMs: Float64Array
  /** index of the trade's coin in the run's symbols */
  coin: Int32Array
}

/**
 * A digest of the accepted trades' columns: with a run's result hash (its spec and data
 * version) it names the inputs its statistics were computed on, so a run computed again
 * (`Cache-Control: no-cache`) reuses the statistics of the cached result of the same hash
 * only when its trades came out the same, bit for bit.
 */
export function columnsDigest(cols: TradeColumns): string {
  const h = createHash('sha1')
  for (const c of [cols.pnlPct, cols.entryMs, cols.exitMs, cols.coin]) h.update(new Uint8Array(c.buffer, c.byteOffset, c.byteLength))
  return h.digest('hex')
}

/** The columns of table rows `entryOrder` (the accepted trades in entry order). */
export function tradeColumns(t: TradeTable, entryOrder: Int32Array): TradeColumns {
  const n = entryOrder.length
  const cols: TradeColumns = { pnlPct: new Float64Array(n), entryMs: new Float64Array(n), exitMs: new Float64Array(n), coin: new Int32Array(n) }
  for (let k = 0; k < n; k++) {
    const i = entryOrder[k]
    cols.pnlPct[k] = t.pnlPct[i]
    cols.entryMs[k] = t.entryMs[i]
    cols.exitMs[k] = t.exitMs[i]
    cols.coin[k] = t.coin[i]
  }
  return cols
}

/**
 * The coins the random-entry null tests: those with trades in a seeded random order
 * (Fisher–Yates), taken while their trades add up to at most maxTrades (the first always)
 * and at most maxCoins, returned in universe order.
 */
export function mcCoins<T extends { trades: number }>(perCoin: readonly T[], limits: { maxCoins: number; maxTrades: number }, seed: number): T[] {
  const withTrades = perCoin.filter(c => c.trades > 0)
  const order = withTrades.map((_, i) => i)
  const rng = new Mulberry32(seed)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  const picked: number[] = []
  let trades = 0
  for (const i of order) {
    if (picked.length >= limits.maxCoins) break
    if (picked.length > 0 && trades + withTrades[i].trades > limits.maxTrades) break
    picked.push(i)
    trades += withTrades[i].trades
  }
  return picked.sort((a, b) => a - b).map(i => withTrades[i])
}

/** Trades and summed net % per coin of the run, in universe order. */
export function coinSums(symbols: readonly string[], cols: TradeColumns): CoinSum[] {
  const out = symbols.map((symbol, index) => ({ symbol, index, trades: 0, sum: 0 }))
  for (let i = 0; i < cols.coin.length; i++) {
    const c = out[cols.coin[i]]
    if (!c) continue
    c.trades++
    c.sum += cols.pnlPct[i]
  }
  return out
}
