/**
 * The condition tree of a strategy (entry and exit signals): its shape and the small
 * helpers that read a well-formed tree. Validation lives in validate.ts, compilation in
 * compile.ts; the language is written down in docs/conditions.md.
 */
import { type Static, type TLiteral, Type } from '@sinclair/typebox'

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

const opt = Type.Optional
const literals = <T extends readonly string[]>(values: T) => values.map(v => Type.Literal(v)) as unknown as { -readonly [K in keyof T]: TLiteral<T[K]> }

/**
 * A column read from a field: the field itself, or its mean / lowest / highest over the
 * `bars` bars ending at the bar read; then read `shift` bars back. So
 * `{field: 'rsi', stat: 'min', bars: 10, shift: 1}` is the lowest RSI of the prior 10 bars.
 */
const seriesFields = {
  field: Type.String({ description: 'indicator or candle field (GET /indicators), e.g. close, bb_upper, rsi' }),
  shift: opt(Type.Integer({ minimum: 0, maximum: TREE_LIMITS.maxShift, description: 'read this many bars back (default 0)' })),
  stat: opt(Type.Union(literals(STATS), { description: 'the mean / lowest / highest of the field over `bars` bars' })),
  bars: opt(Type.Integer({ minimum: 1, maximum: TREE_LIMITS.maxBars, description: 'bars of the `stat` window' })),
}
export const SeriesSchema = Type.Object(seriesFields)
export type Series = Static<typeof SeriesSchema>

/** A series times `mult` (default 1). */
export const TermSchema = Type.Object({ ...seriesFields, mult: opt(Type.Number({ description: 'factor (default 1)' })) }, { title: 'Term' })
export type Term = Static<typeof TermSchema>

/**
 * The right side of a comparison against a field: `mult × series + offset`, where the
 * offset is a number or another scaled series (each with its own shift and window).
 */
export const FieldRefSchema = Type.Object(
  { ...TermSchema.properties, offset: opt(Type.Union([Type.Number(), TermSchema], { description: 'added after the factor: a number or a scaled series' })) },
  { title: 'FieldRef', description: 'field reference (our extension): mult × series + offset' },
)
export type FieldRef = Static<typeof FieldRefSchema>

export const ConditionLeafSchema = Type.Object(
  {
    ...seriesFields,
    op: Type.Union(literals(OPS)),
    value: opt(
      Type.Union(
        [
          Type.Number(),
          Type.Boolean(),
          Type.Array(Type.Number(), { minItems: 1, maxItems: TREE_LIMITS.maxListValues, description: 'the list of `in` / `not_in` (our extension)' }),
          FieldRefSchema,
        ],
        { description: 'a number, a boolean, a list of numbers (`in` / `not_in`) or a field reference' },
      ),
    ),
    value_bool: opt(Type.Boolean({ description: 'legacy form of a boolean `value`' })),
  },
  { title: 'ConditionLeaf', description: 'a comparison of a field (or its window statistic) with a value' },
)
export type ConditionLeaf = Static<typeof ConditionLeafSchema>

/**
 * One node of a condition tree (docs/conditions.md): an AND / OR group, a NOT, an ANY_PRIOR
 * window (our extension), or a leaf. The one definition of the shape: the TypeScript type
 * below is its static type, and /openapi.json publishes it as `ConditionNode` (a oneOf:
 * each kind excludes the others by its `type`, or for a leaf by having none). The precise
 * rules (known fields, their types, depth and size limits) are validateStrategy's.
 */
export const ConditionNodeSchema = Type.Recursive(
  Node =>
    Type.Union([
      Type.Object({ type: Type.Union([Type.Literal('AND'), Type.Literal('OR')]), conditions: Type.Array(Node, { minItems: 1 }) }, { title: 'GroupNode' }),
      // NOT takes its child under `condition`; a one-element `conditions` is accepted too
      Type.Object(
        { type: Type.Literal('NOT'), condition: opt(Node), conditions: opt(Type.Array(Node, { minItems: 1, maxItems: 1 })) },
        { title: 'NotNode', description: 'true where its one child is false' },
      ),
      // true at bar i when its child held on at least one of the prior `bars` bars (i − bars … i − 1)
      Type.Object(
        {
          type: Type.Literal('ANY_PRIOR'),
          bars: Type.Integer({ minimum: 1, maximum: TREE_LIMITS.maxBars, description: 'prior bars searched' }),
          condition: opt(Node),
          conditions: opt(Type.Array(Node, { minItems: 1, maxItems: 1 })),
        },
        { title: 'AnyPriorNode', description: 'our extension: true where its one child held on one of the prior `bars` bars' },
      ),
      ConditionLeafSchema,
    ]),
  { $id: 'ConditionNode', description: 'condition tree node (docs/conditions.md)' },
)
export type ConditionNode = Static<typeof ConditionNodeSchema>
export type GroupNode = Extract<ConditionNode, { type: 'AND' | 'OR' }>
export type NotNode = Extract<ConditionNode, { type: 'NOT' }>
export type AnyPriorNode = Extract<ConditionNode, { type: 'ANY_PRIOR' }>

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
