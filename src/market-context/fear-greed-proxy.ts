/**
 * A fear & greed PROXY computed from the candle store, used only when the
 * alternative.me index is unavailable, and always labelled `local-proxy`.
 * It is not the published index. Formula (docs/market-context.md):
 *
 *   momentum   m = clamp01(0.5 + r30 / 0.40)          r30 = BTC 30-day return (fraction)
 *   volatility v = clamp01(1.5 − σ7 / σ90)            σ = stdev of hourly log returns of BTC
 *                                                      over the last 7 and 90 days
 *   breadth    b = share of the top-50 eligible coins with a positive 7-day change
 *   proxy      = round(100 · (0.4·m + 0.3·v + 0.3·b) / (sum of the weights present))
 *
 * A component without enough history is left out and the weights of the others are
 * renormalised; with none the proxy is null.
 */
import type { CandleStore } from '../market/candle-store'
import { change7d } from '../market/coin-summary'
import type { Universe } from '../market/universe'

const H_PER_DAY = 24
const MOMENTUM_DAYS = 30
const VOL_SHORT_DAYS = 7
const VOL_LONG_DAYS = 90
const BREADTH_COINS = 50
const BREADTH_MIN_COINS = 10
export const PROXY_WEIGHTS = { momentum: 0.4, volatility: 0.3, breadth: 0.3 } as const

export interface FearGreedProxy {
  value: number
  components: { momentum: number | null; volatility: number | null; breadth: number | null }
  /** close time of the BTC candle it was computed at (ms) */
  asOfMs: number
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x))

export function fearGreedProxy(store: CandleStore, universe: Universe, btcSymbol = 'BTCUSDT'): FearGreedProxy | null {
  const bars = store.bars(btcSymbol)
  if (!bars || bars.n < 2) return null
  const last = bars.n - 1
  const c = bars.c

  const mBack = MOMENTUM_DAYS * H_PER_DAY
  const momentum = last >= mBack && c[last - mBack] > 0 ? clamp01(0.5 + (c[last] / c[last - mBack] - 1) / 0.4) : null

  const sShort = logReturnStdev(c, last, VOL_SHORT_DAYS * H_PER_DAY)
  const sLong = logReturnStdev(c, last, VOL_LONG_DAYS * H_PER_DAY)
  const volatility = sShort !== null && sLong !== null && sLong > 0 ? clamp01(1.5 - sShort / sLong) : null

  const lastT = bars.t[last]
  let up = 0, counted = 0
  for (const coin of universe.topN(BREADTH_COINS)) {
    const b = store.bars(coin.meta.symbol)
    if (!b || b.n === 0 || b.t[b.n - 1] !== lastT) continue
    const ch = change7d(b)
    if (ch === null) continue
    counted++
    if (ch > 0) up++
  }
  const breadth = counted >= BREADTH_MIN_COINS ? up / counted : null

  let sum = 0, weights = 0
  if (momentum !== null) (sum += PROXY_WEIGHTS.momentum * momentum), (weights += PROXY_WEIGHTS.momentum)
  if (volatility !== null) (sum += PROXY_WEIGHTS.volatility * volatility), (weights += PROXY_WEIGHTS.volatility)
  if (breadth !== null) (sum += PROXY_WEIGHTS.breadth * breadth), (weights += PROXY_WEIGHTS.breadth)
  if (weights === 0) return null
  return { value: Math.round((100 * sum) / weights), components: { momentum, volatility, breadth }, asOfMs: lastT + bars.stepMs }
}

/** population stdev of the last `n` hourly log returns ending at `last`; null without n+1 closes */
function logReturnStdev(c: Float64Array, last: number, n: number): number | null {
  if (last < n) return null
  let s = 0, s2 = 0
  for (let k = last - n + 1; k <= last; k++) {
    if (!(c[k] > 0 && c[k - 1] > 0)) return null
    const r = Math.log(c[k] / c[k - 1])
    s += r
    s2 += r * r
  }
  const mean = s / n
  return Math.sqrt(Math.max(0, s2 / n - mean * mean))
}
