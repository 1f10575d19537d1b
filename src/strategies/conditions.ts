/**
 * The condition tree of a strategy (entry and exit signals): its shape and the small
 * helpers that read a well-formed tree. Validation lives in validate.ts, compilation in
 * compile.ts; the language is written down in docs/conditions.md.
 */
import type { ConditionLeaf, ConditionNode, FieldRef, AnyPriorNode, NotNode } from './condition-schema'

export { OPS, STATS, TREE_LIMITS, type Op, type Stat } from './condition-terms'
// the tree's types are the static types of its one schema (condition-schema.ts); a type-only
// export, so that code reading trees does not load the schema library
export type { AnyPriorNode, ConditionLeaf, ConditionNode, FieldRef, GroupNode, NotNode, Series, Term } from './condition-schema'

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
