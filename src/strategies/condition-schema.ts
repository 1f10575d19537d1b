/**
 * The shape of a condition tree, defined once as a TypeBox schema: its static types are the
 * compiler's types (re-exported by conditions.ts) and /openapi.json publishes it as the
 * `ConditionNode` component. Type-only importers (the engine, the generated bot) do not load it.
 */
import { type Static, type TLiteral, Type } from '@sinclair/typebox'
import { TIMEFRAMES } from '../market/timeframe'
import { OPS, STATS, SYMBOL_PATTERN, TREE_LIMITS } from './condition-terms'

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
  timeframe: opt(
    Type.Union(literals(TIMEFRAMES), {
      description: "read the field on this timeframe (the run's or a higher one): the value of its last completed bar at the run's bar; shift and bars then count bars of this timeframe",
    }),
  ),
  symbol: opt(Type.String({ pattern: SYMBOL_PATTERN, description: "read the field of this coin (e.g. BTCUSDT) at the run's bar instead of the run's coin" })),
  events: opt(
    Type.Integer({ minimum: 1, maximum: TREE_LIMITS.maxEvents, description: `funding_rate_mean only: the settlements averaged (default ${TREE_LIMITS.defaultFundingEvents})` }),
  ),
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
