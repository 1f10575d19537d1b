import type { Bars } from '../market/types'

/**
 * An indicator output column. Numeric fields hold numbers; boolean fields hold 1 / 0.
 * Warm-up bars (not enough history yet) hold NaN in both kinds, never 0.
 */
export type Column = Float64Array

export interface FieldInfo {
  name: string
  type: 'number' | 'boolean'
  /** one line: what the value means */
  description: string
}

export interface ParamSpec {
  default: number
  min: number
  max: number
  integer: boolean
  description: string
}

/**
 * One entry of the indicator registry: metadata for /indicators and the builder, and
 * `compute`, which fills the preallocated column of every field present in `out` (the
 * fields the caller reads; an absent field may be skipped, work and all).
 */
export interface IndicatorDef {
  id: string
  name: string
  fields: FieldInfo[]
  params: Record<string, ParamSpec>
  compute(bars: Bars, params: Record<string, number>, out: Record<string, Column>): void
}
