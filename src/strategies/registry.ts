/**
 * The strategy registry: every named strategy (`<name>-<direction>`) with its condition
 * tree, indicator params, default settings and status. The rest of the service (GET
 * /strategies, the simulators, the signal scanner, the rankings) reads strategies from
 * here only.
 */
import type { Direction } from '../engine/types'
import { type ConditionNode, isLeaf } from './conditions'
import { FAMILIES, type Family } from './named'
import type { StrategyStatus } from './status'
import { DIRECTIONS, type StrategyDef } from './strategy'
import { all, notIn } from './tree'

export type { StrategyDef } from './strategy'

/**
 * Status of each strategy, assigned by the criteria of STATUS_DEFINITIONS from the
 * measurement written in docs/strategies.md. A strategy missing here is `research`.
 */
const MEASURED_STATUS: Readonly<Record<string, StrategyStatus>> = {
  // measured 2026-11-25 (bench/strategies.ts --oos), the rules of spec/named-strategies.md
  'bb-squeeze-long': 'testing',
  'bb-squeeze-short': 'testing',
  'atr-breakout-long': 'testing',
  'atr-breakout-short': 'testing',
  'hv-squeeze-short': 'testing',
  'rsi-divergence-short': 'verified',
  'macd-cross-short': 'testing',
  'supertrend-long': 'testing',
  'keltner-squeeze-long': 'testing',
  'keltner-squeeze-short': 'testing',
  'ma-cross-long': 'testing',
  'ma-cross-short': 'testing',
  'ichimoku-long': 'verified',
  'ichimoku-short': 'testing',
  'momentum-breakout-long': 'testing',
  'momentum-breakout-short': 'testing',
}

/** The family's rule for one direction, with its avoid_hours as a leaf of the tree. */
export function familyEntry(f: Family, direction: Direction): ConditionNode {
  const rule = f.entry(direction)
  if (f.avoid_hours.length === 0) return rule
  const hours = notIn('next_hour', [...f.avoid_hours])
  return !isLeaf(rule) && rule.type === 'AND' ? { type: 'AND', conditions: [...rule.conditions, hours] } : all(rule, hours)
}

function build(f: Family, direction: Direction): StrategyDef {
  const id = `${f.slug}-${direction}`
  const def: StrategyDef = {
    id,
    name: `${f.name} ${direction.toUpperCase()}`,
    description: f.description(direction),
    direction,
    status: MEASURED_STATUS[id] ?? 'research',
    indicators: structuredClone(f.indicators),
    entry: familyEntry(f, direction),
    sl_pct: f.sl_pct(direction),
    tp_pct: f.tp_pct(direction),
    max_bars: f.max_bars,
    avoid_hours: [...f.avoid_hours],
    origin: f.origin,
  }
  if (f.exit) def.exit_conditions = f.exit(direction)
  return deepFreeze(def)
}

function deepFreeze<T>(x: T): T {
  if (typeof x === 'object' && x !== null) {
    for (const v of Object.values(x)) deepFreeze(v)
    Object.freeze(x)
  }
  return x
}

const LIST: readonly StrategyDef[] = Object.freeze(FAMILIES.flatMap(f => (f.directions ?? DIRECTIONS).map(d => build(f, d))))

export const STRATEGIES: Readonly<Record<string, StrategyDef>> = Object.freeze(Object.fromEntries(LIST.map(s => [s.id, s])))

export function getStrategy(id: string): StrategyDef | undefined {
  return Object.hasOwn(STRATEGIES, id) ? STRATEGIES[id] : undefined
}

/** Every strategy, in registry order (families as listed, long before short). */
export function listStrategies(): readonly StrategyDef[] {
  return LIST
}
