import type { Bars } from '../../market/types'
import type { Column, FieldInfo, IndicatorDef, ParamSpec } from '../types'

/**
 * A registry entry with what the registry needs beyond the public IndicatorDef: the warm-up
 * (first row where every field has a value, for the given params) and cross-parameter rules.
 */
export interface IndicatorSpec extends IndicatorDef {
  warmupBars(params: Record<string, number>): number
  /** messages for rules that involve several params (each param is already in range) */
  crossCheck?(params: Record<string, number>): string[]
}

export type Params = Record<string, number>

export const num = (name: string, description: string): FieldInfo => ({ name, type: 'number', description })
export const bool = (name: string, description: string): FieldInfo => ({ name, type: 'boolean', description })

export const int = (def: number, min: number, max: number, description: string): ParamSpec => ({
  default: def,
  min,
  max,
  integer: true,
  description,
})

export const real = (def: number, min: number, max: number, description: string): ParamSpec => ({
  default: def,
  min,
  max,
  integer: false,
  description,
})

/** Scratch columns by field name, reused across calls (a thread computes one indicator at a time). */
const scratchPool = new Map<string, Float64Array>()

/**
 * Output columns for one compute call: the caller's column when it asked for the field,
 * else a reused scratch column (some fields are inputs of others, and kernels write all
 * they make). A scratch column is only valid during the call that got it.
 */
export function columns(out: Record<string, Column>, n: number): (name: string) => Column {
  return (name) => {
    const own = out[name]
    if (own) return own
    let buf = scratchPool.get(name)
    if (!buf || buf.length < n) scratchPool.set(name, (buf = new Float64Array(n + (n >> 3))))
    return buf.subarray(0, n)
  }
}

/** params over defaults */
export function withDefaults(spec: Pick<IndicatorDef, 'params'>, params: Params): Params {
  const full: Params = {}
  for (const [name, p] of Object.entries(spec.params)) {
    const v = params[name]
    full[name] = typeof v === 'number' ? v : p.default
  }
  return full
}

/** 1 where a > b, 0 where not, NaN where either is NaN */
export function greater(a: Column, b: Column, out: Column, n: number): void {
  for (let i = 0; i < n; i++) {
    const x = a[i]
    const y = b[i]
    out[i] = x !== x || y !== y ? NaN : +(x > y)
  }
}

/** `wants(name)`: the caller asked for that field (a body may skip work nobody reads) */
export type Compute = (bars: Bars, p: Params, col: (name: string) => Column, wants: (name: string) => boolean) => void

/**
 * Builds a spec whose compute resolves defaults and hands the body a column getter, so each
 * definition states only its formula.
 */
export function define(spec: Omit<IndicatorSpec, 'compute'> & { run: Compute }): IndicatorSpec {
  const { run, ...rest } = spec
  return {
    ...rest,
    compute(bars, params, out) {
      run(bars, withDefaults(rest, params), columns(out, bars.n), name => name in out)
    },
  }
}
