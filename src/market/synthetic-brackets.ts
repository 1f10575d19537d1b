/**
 * Margin brackets for a synthetic coin, shaped like Binance's USDⓈ-M brackets and scaled by
 * the coin's liquidity (its median daily quote volume): the more a coin trades, the larger
 * its first bracket, the lower its first maintenance rate and the higher its maximum
 * leverage, as on Binance (BTCUSDT 2024-10: 50,000 USD at 0.4 % and 125×; a thin coin
 * such as HIFIUSDT: 5,000 USD at 1.5 % and 50×). The maintenance amounts follow from
 * continuity (cum_i = cum_{i−1} + floor_i · (mmr_i − mmr_{i−1})), as Binance defines them.
 */
import { roundTo } from '../round'
import type { MarginBracket } from './types'

/** bracket caps of the thinnest coins (USD), maintenance rates and maximum leverage from the second bracket on */
const THIN_CAPS = [5_000, 25_000, 200_000, 500_000, 1_000_000, 3_000_000, 5_000_000]
const RATES = [0.025, 0.05, 0.1, 0.125, 0.25, 0.5]
const LEVERAGE = [20, 10, 5, 4, 2, 1]

export function syntheticBrackets(dailyQuoteUsd: number): MarginBracket[] {
  // the first bracket by liquidity
  const [mmr1, lev1] = dailyQuoteUsd >= 1e9 ? [0.004, 125] : dailyQuoteUsd >= 1e8 ? [0.005, 100] : dailyQuoteUsd >= 1e7 ? [0.01, 75] : [0.015, 50]
  // caps grow with liquidity: ×1 below 5 million USD a day, up to ×10 at 50 million and more (BTC's first cap is 10× a thin coin's)
  const scale = Math.min(10, Math.max(1, dailyQuoteUsd / 5e6))
  const out: MarginBracket[] = []
  let floor = 0
  for (let i = 0; i < THIN_CAPS.length; i++) {
    const cap = Math.round(THIN_CAPS[i] * scale)
    const mmr = i === 0 ? mmr1 : RATES[i - 1]
    const prev = out[i - 1]
    const cum = prev ? prev.cumUsd + floor * (mmr - prev.mmrFrac) : 0
    out.push({ bracket: i + 1, floorUsd: floor, capUsd: cap, mmrFrac: mmr, cumUsd: roundTo(cum, 6), maxLeverage: i === 0 ? lev1 : LEVERAGE[i - 1] })
    floor = cap
  }
  return out
}
