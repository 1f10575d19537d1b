/**
 * The indicator registry: every indicator a strategy condition can use, with its fields and
 * parameter ranges. Field names are unique across the registry, so a condition names a field
 * alone (`bb_upper`, `rsi`) and indicatorOfField finds who computes it.
 */
import type { Bars } from '../market/types'
import { candleDef, heikinAshiDef } from './defs/candles'
import { cciDef, rocDef, rsiDef, stochDef, stochRsiDef, willrDef } from './defs/momentum'
import type { IndicatorSpec } from './defs/spec'
import { withDefaults } from './defs/spec'
import { adxDef, aroonDef, emaDef, ichimokuDef, macdDef, sarDef, smaDef, supertrendDef } from './defs/trend'
import { atrDef, bb, donchianDef, hvDef, keltnerDef } from './defs/volatility'
import { mfiDef, obvDef, volumeDef, volumeProfileDef } from './defs/volume'
import type { Column, IndicatorDef } from './types'

const SPECS: IndicatorSpec[] = [
  bb,
  emaDef,
  volumeDef,
  candleDef,
  smaDef,
  atrDef,
  adxDef,
  rsiDef,
  macdDef,
  stochDef,
  stochRsiDef,
  willrDef,
  cciDef,
  mfiDef,
  obvDef,
  aroonDef,
  sarDef,
  rocDef,
  donchianDef,
  keltnerDef,
  supertrendDef,
  ichimokuDef,
  heikinAshiDef,
  hvDef,
  volumeProfileDef,
]

const BY_ID: Record<string, IndicatorSpec> = Object.fromEntries(SPECS.map((s) => [s.id, s]))

/** Indicator id -> definition (id, name, fields, params, compute). */
export const INDICATORS: Record<string, IndicatorDef> = BY_ID

const FIELD_OWNER: Record<string, string> = {}
for (const spec of SPECS) {
  for (const f of spec.fields) {
    if (FIELD_OWNER[f.name]) throw new Error(`indicator field ${f.name} is defined twice`)
    FIELD_OWNER[f.name] = spec.id
  }
}

/** Every indicator, in registry order (the default set bb, ema, volume, candle first). */
export function listIndicators(): IndicatorDef[] {
  return SPECS.slice()
}

/** The id of the indicator that computes a field, or undefined for an unknown field. */
export function indicatorOfField(field: string): string | undefined {
  return FIELD_OWNER[field]
}

/** Default params of an indicator (an empty object for one without params). */
export function defaultParams(id: string): Record<string, number> {
  return withDefaults(specOf(id), {})
}

/** params over the defaults (unknown names dropped); validate first with validateParams. */
export function resolveParams(id: string, params: Record<string, number> = {}): Record<string, number> {
  return withDefaults(specOf(id), params)
}

/**
 * Problems with an indicator's params, one message each; empty when they are usable.
 * Checks: known indicator, params is an object, no unknown names, finite numbers, integers
 * where the param is an integer, min..max, and the indicator's cross rules (e.g. MACD fast <
 * slow). Missing params are fine: they take their defaults.
 */
export function validateParams(id: string, params: unknown): string[] {
  const spec = BY_ID[id]
  if (!spec) return [`unknown indicator "${id}" (known: ${SPECS.map((s) => s.id).join(', ')})`]
  if (params === undefined || params === null) return []
  if (typeof params !== 'object' || Array.isArray(params)) return [`${id}: params must be an object`]
  const errors: string[] = []
  const given = params as Record<string, unknown>
  for (const [name, value] of Object.entries(given)) {
    const p = spec.params[name]
    const known = Object.keys(spec.params)
    if (!p) {
      errors.push(`${id}.${name}: unknown param (known: ${known.length ? known.join(', ') : 'none'})`)
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      errors.push(`${id}.${name}: must be a number, got ${JSON.stringify(value) ?? String(value)}`)
    } else if (p.integer && !Number.isInteger(value)) {
      errors.push(`${id}.${name}: must be an integer, got ${value}`)
    } else if (value < p.min || value > p.max) {
      errors.push(`${id}.${name}: must be between ${p.min} and ${p.max}, got ${value}`)
    }
  }
  if (errors.length === 0 && spec.crossCheck) errors.push(...spec.crossCheck(withDefaults(spec, given as Record<string, number>)))
  return errors
}

/**
 * Bars before every field of the indicator has a value (the first row where all are set, on
 * data without gaps); an upper bound for the warm-up a backtest must skip.
 */
export function indicatorWarmupBars(id: string, params: Record<string, number> = {}): number {
  const spec = specOf(id)
  return spec.warmupBars(withDefaults(spec, params))
}

/** Computes every field of one indicator into fresh columns of bars.n rows. */
export function computeIndicator(id: string, bars: Bars, params: Record<string, number> = {}): Record<string, Column> {
  const spec = specOf(id)
  const out: Record<string, Column> = {}
  for (const f of spec.fields) out[f.name] = new Float64Array(bars.n)
  spec.compute(bars, params, out)
  return out
}

function specOf(id: string): IndicatorSpec {
  const spec = BY_ID[id]
  if (!spec) throw new RangeError(`unknown indicator "${id}"`)
  return spec
}
