/**
 * Validation of strategy requests against the real indicator registry: one test per
 * kind of problem, each checking the message names the path and says what is wrong.
 */
import { describe, expect, test } from 'bun:test'
import { type StrategySpecInput, TREE_LIMITS } from '../src/strategies/conditions'
import { validateStrategy } from '../src/strategies/validate'

const leaf = (field: string, op: string, value: unknown, extra: object = {}) => ({ field, op, value, ...extra })
const and = (...conditions: unknown[]) => ({ type: 'AND', conditions })
const DEFAULT_INDICATORS = { bb: {}, ema: {}, volume: {}, candle: {} }

function errorsOf(entry: unknown, indicators: unknown = DEFAULT_INDICATORS, exit_conditions?: unknown): string[] {
  return validateStrategy({ indicators, entry, exit_conditions } as StrategySpecInput)
}

/** exactly one message, starting with `path: ` and containing every fragment */
function expectOne(errors: string[], path: string, ...fragments: string[]) {
  expect(errors).toHaveLength(1)
  expect(errors[0].startsWith(`${path}: `)).toBe(true)
  for (const f of fragments) expect(errors[0]).toContain(f)
}

describe('a valid strategy', () => {
  test('has no errors, whatever mix of leaves, groups, shifts and field comparisons it uses', () => {
    const entry = and(
      leaf('close', '>', { field: 'bb_upper' }),
      leaf('is_squeeze', '==', true, { shift: 1 }),
      { type: 'NOT', condition: leaf('vol_ratio', '<', 1) },
      { type: 'NOT', conditions: [leaf('hour', '==', 3)] },
      { type: 'OR', conditions: [leaf('uptrend', '==', true), { field: 'is_bullish', op: '!=', value_bool: false }] },
      leaf('ema_fast', 'crosses_above', { field: 'ema_slow', shift: 2 }),
      leaf('weekday', '<=', 4),
    )
    expect(errorsOf(entry)).toEqual([])
  })
  test('a missing indicators object only leaves the base fields available', () => {
    expect(validateStrategy({ entry: leaf('close', '>', 1) })).toEqual([])
  })
})

describe('each kind of problem is reported with its path', () => {
  test('unknown indicator id in indicators, with a suggestion', () => {
    expectOne(errorsOf(leaf('close', '>', 1), { bbb: {} }), 'indicators.bbb', "unknown indicator 'bbb'", 'did you mean bb?')
  })
  test('unknown field, with the closest name suggested', () => {
    expectOne(errorsOf(and(leaf('close', '>', 1), leaf('bb_uper', '>', 1))), 'entry.conditions[1].field', "unknown field 'bb_uper'", 'did you mean bb_upper?')
  })
  test('an indicator id used as a field lists that indicator’s fields', () => {
    expectOne(errorsOf(leaf('bb', '>', 1)), 'entry.field', "'bb' is an indicator", 'bb_upper')
  })
  test('a field whose indicator is not listed says which indicator to add', () => {
    expectOne(errorsOf(leaf('rsi', '<', 30)), 'entry.field', "'rsi' comes from indicator 'rsi'", '"rsi": {}')
  })
  test('a comparison field whose indicator is not listed is reported under value.field', () => {
    expectOne(errorsOf(leaf('close', '>', { field: 'kc_upper' })), 'entry.value.field', "indicator 'keltner'")
  })
  test('an ordering operator on a boolean field', () => {
    expectOne(errorsOf(leaf('is_squeeze', '>', 0)), 'entry.op', "'>' does not apply to boolean field 'is_squeeze'")
  })
  test('crosses_above / crosses_below on a boolean field', () => {
    expectOne(errorsOf(leaf('uptrend', 'crosses_above', true)), 'entry.op', 'crosses_above needs number fields', "'uptrend' is boolean")
    expectOne(errorsOf(leaf('uptrend', 'crosses_below', { field: 'downtrend' })), 'entry.op', 'crosses_below needs number fields')
  })
  test('a number field compared with a boolean', () => {
    expectOne(errorsOf(leaf('close', '==', true)), 'entry.value', "'close' is a number field", 'true')
  })
  test('a boolean field compared with a number', () => {
    expectOne(errorsOf(leaf('is_bullish', '==', 1)), 'entry.value', "'is_bullish' is a boolean field", 'not 1')
  })
  test('a legacy value_bool on a number field names value_bool', () => {
    expectOne(errorsOf({ field: 'close', op: '==', value_bool: true }), 'entry.value_bool', "'close' is a number field")
  })
  test('two fields of different types', () => {
    expectOne(errorsOf(leaf('close', '==', { field: 'uptrend' })), 'entry.value.field', "cannot compare number field 'close' with boolean field 'uptrend'")
  })
  test('an empty AND or OR', () => {
    expectOne(errorsOf(and()), 'entry.conditions', 'AND with no conditions')
    expectOne(errorsOf(and(leaf('close', '>', 1), { type: 'OR', conditions: [] })), 'entry.conditions[1].conditions', 'OR with no conditions')
  })
  test('a tree deeper than 8 levels is reported once, at the first node too deep', () => {
    let node: unknown = leaf('close', '>', 1)
    for (let d = 1; d < TREE_LIMITS.maxDepth; d++) node = and(node)
    expect(errorsOf(node)).toEqual([]) // exactly 8 levels is allowed
    const tooDeep = and(node)
    const path = `entry${'.conditions[0]'.repeat(TREE_LIMITS.maxDepth)}`
    expectOne(errorsOf(tooDeep), path, 'more than 8 levels deep')
    expectOne(errorsOf(and(and(tooDeep))), `entry.conditions[0].conditions[0]${'.conditions[0]'.repeat(TREE_LIMITS.maxDepth - 2)}`, 'more than 8 levels')
  })
  test('more than 64 leaves in one tree', () => {
    const leaves = (k: number) => Array.from({ length: k }, (_, i) => leaf('close', '>', i))
    expect(errorsOf(and(...leaves(64)))).toEqual([])
    expectOne(errorsOf(and(...leaves(65))), 'entry', '65 conditions', 'at most 64')
  })
  test('a shift out of 0..50, on the leaf or on the compared field', () => {
    expectOne(errorsOf(leaf('close', '>', 1, { shift: 51 })), 'entry.shift', 'from 0 to 50', '51')
    expectOne(errorsOf(leaf('close', '>', 1, { shift: -1 })), 'entry.shift', 'from 0 to 50')
    expectOne(errorsOf(leaf('close', '>', 1, { shift: 1.5 })), 'entry.shift', 'integer')
    expectOne(errorsOf(leaf('close', '>', { field: 'open', shift: 99 })), 'entry.value.shift', 'from 0 to 50')
  })
  test('indicator params out of range', () => {
    expectOne(errorsOf(leaf('close', '>', { field: 'bb_upper' }), { bb: { period: 0 } }), 'indicators.bb.period', '0')
    expectOne(errorsOf(leaf('close', '>', 1), { macd: { fast: 30, slow: 26 } }), 'indicators.macd', 'fast')
  })
  test('params that are not an object', () => {
    expectOne(errorsOf(leaf('close', '>', 1), { bb: 20 }), 'indicators.bb', 'expected an object of params')
  })
  test('an unknown operator lists the accepted ones', () => {
    expectOne(errorsOf(leaf('close', '=>', 1)), 'entry.op', "unknown operator \"=>\"", 'crosses_above')
  })
  test('a missing op, field or value', () => {
    expectOne(errorsOf({ field: 'close', value: 1 }), 'entry.op', 'required')
    expectOne(errorsOf({ field: 'close', op: '>' }), 'entry.value', 'required')
    expectOne(errorsOf(and({ op: '>', value: 1 })), 'entry.conditions[0]', 'expected a group')
  })
  test('a value of the wrong kind', () => {
    expectOne(errorsOf(leaf('close', '>', '30')), 'entry.value', 'expected a number, a boolean, a list of numbers or {field, shift?, stat?, bars?, mult?, offset?}')
  })
  test('both value and value_bool', () => {
    expectOne(errorsOf({ field: 'uptrend', op: '==', value: true, value_bool: true }), 'entry', 'either value or value_bool')
  })
  test('NOT with other than one child', () => {
    expectOne(errorsOf({ type: 'NOT', conditions: [leaf('close', '>', 1), leaf('open', '>', 1)] }), 'entry', 'NOT takes exactly one child', '2 conditions')
  })
  test('an unknown node type, with a hint for lower case', () => {
    expectOne(errorsOf({ type: 'and', conditions: [leaf('close', '>', 1)] }), 'entry.type', 'unknown node type "and"', 'did you mean AND?')
    expectOne(errorsOf({ type: 'XOR', conditions: [] }), 'entry.type', 'expected AND, OR, NOT or ANY_PRIOR')
  })
  test('a missing entry tree', () => {
    expectOne(validateStrategy({ indicators: {} }), 'entry', 'required')
  })
  test('exit_conditions is checked like entry, under its own path', () => {
    expectOne(errorsOf(leaf('close', '>', 1), DEFAULT_INDICATORS, and(leaf('bb_uper', '<', 1))), 'exit_conditions.conditions[0].field', 'did you mean bb_upper?')
  })
})

test('a request with several problems reports every one of them, in order', () => {
  const errors = validateStrategy({
    indicators: { bb: { period: 1 }, rsii: {} },
    entry: and(
      leaf('bb_uper', '>', 1),
      leaf('rsi', '<', 30),
      leaf('is_squeeze', '>', 0),
      { type: 'OR', conditions: [] },
      leaf('close', '>', 1, { shift: 60 }),
    ),
    exit_conditions: leaf('close', '==', true),
  })
  const paths = errors.map(e => e.slice(0, e.indexOf(': ')))
  expect(paths).toEqual([
    'indicators.bb.period',
    'indicators.rsii',
    'entry.conditions[0].field',
    'entry.conditions[1].field',
    'entry.conditions[2].op',
    'entry.conditions[3].conditions',
    'entry.conditions[4].shift',
    'exit_conditions.value',
  ])
})
