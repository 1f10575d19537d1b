/**
 * The condition tree of a strategy (entry and exit signals): its shape and the small
 * helpers that read a well-formed tree. Validation lives in validate.ts, compilation in
 * compile.ts; the language is written down in docs/conditions.md.
 */

export const OPS = ['==', '!=', '>', '>=', '<', '<=', 'crosses_above', 'crosses_below', 'in', 'not_in'] as const
export type Op = (typeof OPS)[number]

/** Window statistics a series may take of a number field. */
export const STATS = ['mean', 'min', 'max'] as const
export type Stat = (typeof STATS)[number]

export const TREE_LIMITS = {
  /** levels from the root (a lone leaf is depth 1) */
  maxDepth: 8,
  /** leaves per tree (entry and exit are counted apart) */
  maxLeaves: 64,
  /** bars back a `shift` may read */
  maxShift: 50,
  /** bars in a window (`bars` of a stat or of ANY_PRIOR) */
  maxBars: 500,
  /** values in the list of `in` / `not_in` */
  maxListValues: 64,
} as const

/**
 * A column read from a field: the field itself, or its mean / lowest / highest over the
 * `bars` bars ending at the bar read; then read `shift` bars back. So
 * `{field: 'rsi', stat: 'min', bars: 10, shift: 1}` is the lowest RSI of the prior 10 bars.
 */
export interface Series {
  field: string
  shift?: number
  stat?: Stat
  bars?: number
}

/** A series times `mult` (default 1). */
export interface Term extends Series {
  mult?: number
}

/**
 * The right side of a comparison against a field: `mult × series + offset`, where the
 * offset is a number or another scaled series (each with its own shift and window).
 */
export interface FieldRef extends Term {
  offset?: number | Term
}

export interface ConditionLeaf extends Series {
  op: Op
  /** a number, a boolean, a list of numbers (`in` / `not_in`) or a field expression */
  value?: number | boolean | number[] | FieldRef
  /** legacy form of a boolean `value` */
  value_bool?: boolean
}

export interface GroupNode {
  type: 'AND' | 'OR'
  conditions: ConditionNode[]
}

/** NOT takes its child under `condition`; a one-element `conditions` is accepted too. */
export interface NotNode {
  type: 'NOT'
  condition?: ConditionNode
  conditions?: ConditionNode[]
}

/** True at bar i when its child held on at least one of the prior `bars` bars (i − bars … i − 1). */
export interface AnyPriorNode {
  type: 'ANY_PRIOR'
  bars: number
  condition?: ConditionNode
  conditions?: ConditionNode[]
}

export type ConditionNode = GroupNode | NotNode | AnyPriorNode | ConditionLeaf

/** indicator id -> params (merged over the indicator's defaults) */
export type IndicatorParams = Record<string, Record<string, number>>

export interface StrategySpec {
  indicators: IndicatorParams
  entry: ConditionNode
  exit_conditions?: ConditionNode | null
}

/** The request as it arrives: anything may be missing or of the wrong type. */
export interface StrategySpecInput {
  indicators?: unknown
  entry?: unknown
  exit_conditions?: unknown
}

/** What a leaf compares its field with (after validation). */
export type Comparand =
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'list'; values: number[] }
  | { kind: 'field'; ref: FieldRef }

export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)

/** The comparison value of a well-formed leaf (after validation). */
export function comparandOf(leaf: ConditionLeaf): Comparand {
  const v = leaf.value !== undefined ? leaf.value : leaf.value_bool
  if (typeof v === 'number') return { kind: 'number', value: v }
  if (typeof v === 'boolean') return { kind: 'boolean', value: v }
  if (Array.isArray(v)) return { kind: 'list', values: v }
  if (isObject(v)) return { kind: 'field', ref: v as FieldRef }
  throw new Error('comparandOf: leaf has no value (validate the tree first)')
}

export function isLeaf(node: ConditionNode): node is ConditionLeaf {
  return !('type' in node) && 'field' in node
}

/** The one child of a NOT or ANY_PRIOR node, in either accepted form. */
export function onlyChild(node: NotNode | AnyPriorNode): ConditionNode {
  return (node.condition ?? node.conditions?.[0]) as ConditionNode
}

/**
 * Leaves of a tree (the contract's `conditions_count`). Unknown shapes count as nothing.
 * Iterative, so an absurdly deep request cannot overflow the stack.
 */
export function conditionsCount(tree: unknown): number {
  let n = 0
  const stack: unknown[] = [tree]
  while (stack.length > 0) {
    const node = stack.pop()
    if (!isObject(node)) continue
    if (typeof node.type === 'string') {
      if (Array.isArray(node.conditions)) for (const c of node.conditions) stack.push(c)
      if (node.condition !== undefined) stack.push(node.condition)
    } else if ('field' in node) n++
  }
  return n
}
