/**
 * Shorthand for writing condition trees in code (the registry and the presets). Every
 * helper returns the plain JSON shape a client would send, so a named strategy is
 * exactly what a user could have built.
 */
import type { ConditionLeaf, ConditionNode, FieldRef, Op } from './conditions'

export const all = (...conditions: ConditionNode[]): ConditionNode => ({ type: 'AND', conditions })
export const any = (...conditions: ConditionNode[]): ConditionNode => ({ type: 'OR', conditions })
export const not = (condition: ConditionNode): ConditionNode => ({ type: 'NOT', condition })

/**
 * The contract's top level, `{type: 'AND', conditions: [...]}`: an AND is kept as it is, any
 * other node (a lone leaf, an OR, a NOT) becomes the one child of an AND, which is true
 * exactly where that child is. Served trees (GET /strategies, /builder/presets/{id}) take it.
 */
export const andTop = (node: ConditionNode): ConditionNode => ('type' in node && node.type === 'AND' ? node : all(node))

/** `{field, shift}` as the right-hand side of a comparison */
export const ref = (field: string, shift = 0): FieldRef => (shift ? { field, shift } : { field })

export function cmp(field: string, op: Op, value: number | boolean | FieldRef, shift = 0): ConditionLeaf {
  return shift ? { field, op, value, shift } : { field, op, value }
}

/** a boolean field is true (or, with `value` false, false) `shift` bars back */
export const is = (field: string, value = true, shift = 0): ConditionLeaf => cmp(field, '==', value, shift)

/** true at bar i when `condition` held on at least one of the bars i − bars … i − 1 */
export const anyPrior = (bars: number, condition: ConditionNode): ConditionNode => ({ type: 'ANY_PRIOR', bars, condition })

/** the field's value is not one of `values` (NaN is in no list and not outside one either) */
export const notIn = (field: string, values: number[]): ConditionLeaf => ({ field, op: 'not_in', value: values })
