/**
 * Monte Carlo of a strategy's own trades (the risk view of /simulate/validate): paths of
 * as many trades as the run took, each drawn with replacement from its trades' net
 * returns, booked one after another on one account. The spread of the paths' final
 * returns and drawdowns shows how much of the result the order and the luck of the draw
 * decide. Formulas: docs/statistics.md, "Trade bootstrap".
 */
import { drawdownPct } from './equity-curve'
import { Mulberry32 } from './random'
import { DEFAULT_PERCENTILES, equityBands, percentiles, type EquityBands } from './statistics-monte-carlo'

/** How a path sizes its trades: the portfolio's rule, taken one trade at a time. */
export interface PathSizing {
  initialCapitalUsd: number
  /** margin per trade without compounding (per_coin_usd) */
  marginUsd: number
  /** with compounding a trade's margin is equity / maxConcurrent at its turn */
  compounding: boolean
  maxConcurrent: number
}

export interface PathStats {
  /** (final equity / initial − 1) × 100 */
  finalReturnPct: number
  /** deepest fall below the running peak (the initial capital at first), % of the peak */
  maxDrawdownPct: number
}

/** Path points kept for the bands: steps 0..n when few, else `points` evenly spaced ones, the ends included. */
export function pathSteps(nTrades: number, points: number): Int32Array {
  if (nTrades + 1 <= points) return Int32Array.from({ length: nTrades + 1 }, (_, s) => s)
  return Int32Array.from({ length: points }, (_, i) => Math.round((i * nTrades) / (points - 1)))
}

/**
 * Books the trades pnlPct[pick[0]], pnlPct[pick[1]], … (or in order when pick is null) and
 * returns the path's figures; `record`, when given, receives the return % after each
 * step listed in `steps` (step s = after s trades).
 */
export function bookPath(
  pnlPct: ArrayLike<number>,
  pick: Int32Array | null,
  sizing: PathSizing,
  record?: { steps: Int32Array; out: Float64Array },
): PathStats {
  const n = pick ? pick.length : pnlPct.length
  const initial = sizing.initialCapitalUsd
  let equity = initial
  let peak = initial
  let maxDd = 0
  let r = 0
  if (record && record.steps[0] === 0) record.out[r++] = 0
  for (let s = 1; s <= n; s++) {
    const x = pnlPct[pick ? pick[s - 1] : s - 1]
    const margin = sizing.compounding ? (equity > 0 ? equity / sizing.maxConcurrent : 0) : sizing.marginUsd
    equity += (margin * x) / 100
    if (equity > peak) peak = equity
    const dd = drawdownPct(peak, equity)
    if (dd > maxDd) maxDd = dd
    if (record && r < record.steps.length && record.steps[r] === s) record.out[r++] = (equity / initial - 1) * 100
  }
  return { finalReturnPct: (equity / initial - 1) * 100, maxDrawdownPct: maxDd }
}

export interface TradeBootstrapResult {
  simulations: number
  /** trades per path */
  trades: number
  finalReturnPct: Float64Array
  maxDrawdownPct: Float64Array
  /** share of paths ending above their initial capital, 0..1 */
  probabilityPositive: number
  /** band x-axis: trades taken */
  steps: number[]
  /** percentile bands of the paths' return % at those steps */
  bands: EquityBands['bands']
}

/** `simulations` bootstrap paths of the trades, from mulberry32(seed). */
export function tradeBootstrap(
  pnlPct: Float64Array,
  sizing: PathSizing,
  simulations: number,
  seed: number,
  opts: { points?: number; percentiles?: readonly number[] } = {},
): TradeBootstrapResult {
  const n = pnlPct.length
  const steps = pathSteps(n, opts.points ?? 200)
  const finals = new Float64Array(simulations)
  const dds = new Float64Array(simulations)
  const paths: Float64Array[] = []
  const rng = new Mulberry32(seed)
  const pick = new Int32Array(n)
  let positive = 0
  for (let j = 0; j < simulations; j++) {
    if (n > 0) rng.fillIndices(pick, n)
    const out = new Float64Array(steps.length)
    const st = bookPath(pnlPct, pick, sizing, { steps, out })
    finals[j] = st.finalReturnPct
    dds[j] = st.maxDrawdownPct
    if (st.finalReturnPct > 0) positive++
    paths.push(out)
  }
  const bands = equityBands(paths, { percentiles: opts.percentiles ?? DEFAULT_PERCENTILES, maxPoints: steps.length })
  return {
    simulations,
    trades: n,
    finalReturnPct: finals,
    maxDrawdownPct: dds,
    probabilityPositive: simulations > 0 ? positive / simulations : 0,
    steps: Array.from(steps),
    bands: bands.bands,
  }
}

/** Percentiles keyed "p5", "p25", …; null without values. */
export function percentileTable(values: ArrayLike<number>, ps: readonly number[] = DEFAULT_PERCENTILES): Record<string, number> | null {
  const q = percentiles(values, ps)
  return q ? Object.fromEntries(ps.map((p, i) => [`p${p}`, q[i]])) : null
}
