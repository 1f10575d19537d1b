/**
 * Public descriptions of the registries, shaped as the API serves them (GET /strategies,
 * GET /indicators, GET /builder/indicators). Plain data; the modules only route.
 */
import type { IndicatorDef } from '../indicators/types'
import type { IndicatorCatalog } from './catalog'
import type { FieldType } from './catalog'
import type { ConditionNode, IndicatorParams } from './conditions'
import { DEFAULT_CATALOG } from './default-catalog'
import { getPreset, type Preset } from './presets'
import { listStrategies } from './registry'
import type { StrategyStatus } from './status'
import { andTop } from './tree'

export interface StrategyInfo {
  id: string
  name: string
  description: string
  default_params: { sl_pct: number; tp_pct: number; max_bars: number; direction: 'long' | 'short'; status: StrategyStatus; avoid_hours: number[] }
  /** the strategy itself, in the /backtest request form */
  indicators: IndicatorParams
  entry: ConditionNode
  exit_conditions: ConditionNode | null
}

export interface IndicatorInfo {
  name: string
  /** field names usable in conditions */
  fields: string[]
  default_params: Record<string, number>
  field_info: { name: string; type: FieldType; description: string }[]
  param_info: Record<string, { default: number; min: number; max: number; integer: boolean; description: string }>
}

export function strategyInfos(): StrategyInfo[] {
  return listStrategies().map(s => ({
    id: s.id,
    name: s.name,
    description: s.description,
    default_params: { sl_pct: s.sl_pct, tp_pct: s.tp_pct, max_bars: s.max_bars, direction: s.direction, status: s.status, avoid_hours: [...s.avoid_hours] },
    indicators: structuredClone(s.indicators),
    entry: andTop(structuredClone(s.entry)),
    exit_conditions: s.exit_conditions ? andTop(structuredClone(s.exit_conditions)) : null,
  }))
}

/** GET /builder/presets/{id}: the preset with its trees under the contract's top-level AND. */
export function servedPreset(id: string): Preset | undefined {
  const p = getPreset(id)
  return p && { ...p, entry: andTop(p.entry), exit_conditions: p.exit_conditions && andTop(p.exit_conditions) }
}

export function indicatorInfo(def: IndicatorDef): IndicatorInfo {
  const default_params: Record<string, number> = {}
  const param_info: IndicatorInfo['param_info'] = {}
  for (const [k, p] of Object.entries(def.params)) {
    default_params[k] = p.default
    param_info[k] = { default: p.default, min: p.min, max: p.max, integer: p.integer, description: p.description }
  }
  return {
    name: def.name,
    fields: def.fields.map(f => f.name),
    default_params,
    field_info: def.fields.map(f => ({ name: f.name, type: f.type, description: f.description })),
    param_info,
  }
}

/** GET /indicators: keyed by id */
export function indicatorRegistry(catalog: IndicatorCatalog = DEFAULT_CATALOG): Record<string, IndicatorInfo> {
  return Object.fromEntries(Object.entries(catalog.defs).map(([id, def]) => [id, indicatorInfo(def)]))
}

/** GET /builder/indicators: the same entries as a list, each with its id */
export function indicatorList(catalog: IndicatorCatalog = DEFAULT_CATALOG): (IndicatorInfo & { id: string })[] {
  return Object.entries(catalog.defs).map(([id, def]) => ({ id, ...indicatorInfo(def) }))
}

