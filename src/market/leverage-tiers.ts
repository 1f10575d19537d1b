/**
 * Leverage tiers in the shape of ccxt's `fetchLeverageTiers()` (a key per unified symbol
 * such as `BTC/USDT:USDT`, a list of tiers with `minNotional`, `maxNotional`,
 * `maintenanceMarginRate`, `maxLeverage` and the exchange's raw bracket under `info`,
 * whose `cum` is Binance's maintenance amount) → the engine's MarginBracket lists by
 * store symbol (`BTCUSDT`). Only USDT-margined perpetuals are kept (the store's coins);
 * USDC-margined and dated contracts are skipped and counted. A document is recognised by
 * its content (`isLeverageTiers`), as the CSV imports are.
 */
import type { MarginBracket } from './types'

export interface TiersParse {
  brackets: Record<string, MarginBracket[]>
  /** keys that are not USDT perpetuals (USDC-margined, dated futures) */
  skipped: number
  /** per symbol, why its tiers were refused */
  errors: { key: string; reason: string }[]
}

interface CcxtTier {
  tier?: number
  minNotional?: unknown
  maxNotional?: unknown
  maintenanceMarginRate?: unknown
  maxLeverage?: unknown
  info?: { cum?: unknown; bracket?: unknown }
}

const isTier = (x: unknown): x is CcxtTier =>
  typeof x === 'object' && x !== null && 'maxNotional' in x && 'maintenanceMarginRate' in x && 'maxLeverage' in x

/** A parsed JSON value is a leverage-tiers document: an object of non-empty tier lists. */
export function isLeverageTiers(doc: unknown): doc is Record<string, unknown[]> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false
  const values = Object.values(doc)
  return values.length > 0 && values.every(v => Array.isArray(v) && v.length > 0 && v.every(isTier))
}

/** `BTC/USDT:USDT` → `BTCUSDT`; null for anything but a USDT-margined perpetual */
export function storeSymbolOf(unified: string): string | null {
  const m = /^([A-Z0-9]+)\/USDT:USDT$/.exec(unified)
  return m ? `${m[1]}USDT` : null
}

const num = (x: unknown): number => (typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN)

/**
 * One symbol's tiers as brackets. `cum` comes from the raw bracket when present, else
 * from continuity of the maintenance margin (cum_i = cum_{i−1} + floor_i · (mmr_i − mmr_{i−1})),
 * which is how Binance defines it.
 */
export function bracketsOfTiers(tiers: readonly CcxtTier[]): MarginBracket[] {
  const sorted = [...tiers].sort((a, b) => num(a.minNotional) - num(b.minNotional))
  const out: MarginBracket[] = []
  sorted.forEach((t, i) => {
    const floor = num(t.minNotional ?? 0)
    const mmr = num(t.maintenanceMarginRate)
    const rawCum = num(t.info?.cum)
    const prev = out[i - 1]
    const cum = Number.isFinite(rawCum) ? rawCum : prev ? prev.cumUsd + floor * (mmr - prev.mmrFrac) : 0
    const bracket = num(t.info?.bracket ?? t.tier ?? i + 1)
    out.push({ bracket: Number.isFinite(bracket) ? bracket : i + 1, floorUsd: floor, capUsd: num(t.maxNotional), mmrFrac: mmr, cumUsd: cum, maxLeverage: num(t.maxLeverage) })
  })
  return out
}

export function parseLeverageTiers(doc: Record<string, unknown[]>): TiersParse {
  const brackets: Record<string, MarginBracket[]> = {}
  const errors: TiersParse['errors'] = []
  let skipped = 0
  for (const [key, tiers] of Object.entries(doc)) {
    const symbol = storeSymbolOf(key)
    if (symbol === null) {
      skipped++
      continue
    }
    const bs = bracketsOfTiers(tiers as CcxtTier[])
    const problems = bracketProblems(bs)
    if (problems.length) errors.push({ key, reason: problems.join('; ') })
    else brackets[symbol] = bs
  }
  return { brackets, skipped, errors }
}

/** Problems of a bracket list (sorted, contiguous, rates in (0, 1), leverage ≥ 1), empty when it is sound. */
export function bracketProblems(brackets: readonly MarginBracket[]): string[] {
  const out: string[] = []
  if (brackets.length === 0) out.push('no brackets')
  brackets.forEach((b, i) => {
    if (!(b.capUsd > b.floorUsd)) out.push(`bracket ${b.bracket}: cap ${b.capUsd} is not above floor ${b.floorUsd}`)
    if (i > 0 && b.floorUsd !== brackets[i - 1].capUsd) out.push(`bracket ${b.bracket}: floor ${b.floorUsd} does not meet the previous cap ${brackets[i - 1].capUsd}`)
    if (!(b.mmrFrac > 0 && b.mmrFrac < 1)) out.push(`bracket ${b.bracket}: maintenance rate ${b.mmrFrac} outside (0, 1)`)
    if (!(b.maxLeverage >= 1)) out.push(`bracket ${b.bracket}: max leverage ${b.maxLeverage} below 1`)
    if (!(b.cumUsd >= 0)) out.push(`bracket ${b.bracket}: maintenance amount ${b.cumUsd} negative`)
  })
  if (brackets.length > 0 && brackets[0].floorUsd !== 0) out.push(`bracket ${brackets[0].bracket}: the first floor is ${brackets[0].floorUsd}, not 0`)
  return out
}
