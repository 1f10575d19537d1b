/** The shape of a named strategy: a condition tree with its settings, nothing more. */
import type { Direction } from '../engine/types'
import type { ConditionNode, IndicatorParams, StrategySpec } from './conditions'
import type { StrategyStatus } from './status'

export interface StrategyDef extends StrategySpec {
  /** `<name>-<direction>` */
  id: string
  name: string
  /** what it does, in plain words */
  description: string
  direction: Direction
  status: StrategyStatus
  /** indicator id -> params; listed in full so the settings are visible */
  indicators: IndicatorParams
  entry: ConditionNode
  exit_conditions?: ConditionNode | null
  sl_pct: number
  tp_pct: number
  max_bars: number
  /** UTC hours of the entry bar at which it does not enter; already a `next_hour not_in` leaf of `entry` */
  avoid_hours: number[]
  /** `reference`: the replaced service's rule (spec/named-strategies.md); `ours`: a rule of our own */
  origin: 'reference' | 'ours'
}

/** Both directions of one idea: the long and short trees differ only in the side they read. */
export type Sided<T> = (direction: Direction) => T

export const DIRECTIONS: readonly Direction[] = ['long', 'short']
