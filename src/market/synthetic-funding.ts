/**
 * Funding of the synthetic market: Binance's rule F = P + clamp(I − P, ±0.05 %), capped,
 * with a premium P that leans with the coin's trend. Shared by the generator and the
 * demo continuation; written down in docs/data.md, "Synthetic universe".
 */
import { Rng, hash32 } from './synthetic-rng'
import type { Tier } from './synthetic-model'
import { HOUR_MS } from '../time'
import { roundTo } from '../round'

/** Binance's interest component: 0.01 % per 8 hours */
const INTEREST_PER_8H = 0.0001
/** the band Binance clamps (interest − premium) into */
const INTEREST_CLAMP = 0.0005
/** premium model: a slightly negative base, leaning with the 7-day trend (harder up than down) */
const PREMIUM_BASE = -0.00045
const PREMIUM_TREND_UP = 0.0128
const PREMIUM_TREND_DOWN = 0.001
const PREMIUM_NOISE: Record<Tier, number> = { major: 0.00006, large: 0.0001, mid: 0.00014, small: 0.0002, micro: 0.0003 }
export const FUNDING_TREND_HOURS = 168

export interface FundingRule {
  everyH: 4 | 8
  tier: Tier
  stable: boolean
}

/** cap and floor of the rate, of the order of Binance's published limits */
export function fundingCap(rule: FundingRule): number {
  if (rule.everyH === 4) return 0.02
  return rule.tier === 'major' ? 0.003 : 0.0075
}

/**
 * Rate of one settlement: F = P + clamp(I − P, −0.05 %, 0.05 %), capped, where the
 * premium P leans with the coin's log return over the last 7 days (`trendLog`).
 */
export function fundingRate(rule: FundingRule, trendLog: number, noise: number): number {
  const lean = rule.stable ? 0 : trendLog > 0 ? PREMIUM_TREND_UP * trendLog : PREMIUM_TREND_DOWN * trendLog
  const premium = PREMIUM_BASE + lean + PREMIUM_NOISE[rule.tier] * (rule.stable ? 0.5 : 1) * noise
  const interest = (INTEREST_PER_8H * rule.everyH) / 8
  const clampBand = Math.min(INTEREST_CLAMP, Math.max(-INTEREST_CLAMP, interest - premium))
  const cap = fundingCap(rule)
  const rate = Math.min(cap, Math.max(-cap, premium + clampBand))
  return roundTo(rate, 8)
}

/** the noise of a coin's settlement at tMs: one draw from its own (seed, symbol, time) stream */
export function fundingNoiser(seed: number, symbol: string): (tMs: number) => number {
  const h = hash32(seed, `funding:${symbol}`)
  return tMs => Rng.keyed(h, tMs).normal()
}

/** is tMs a settlement time for a coin that settles every `everyH` hours (00:00 UTC aligned)? */
export function isFundingTime(tMs: number, everyH: 4 | 8): boolean {
  return tMs % (everyH * HOUR_MS) === 0
}
