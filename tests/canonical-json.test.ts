/**
 * Canonical JSON (docs/canonical-json.md): the strict form of Merkle leaves and
 * `trust verify`, and the JSON.stringify-like form of result hashes, day files and cache
 * keys. Both must write, byte for byte, what the two serializers they replaced wrote
 * (copied below as the reference), or stored hashes and published files would move.
 */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { canonicalJson, canonicalJsonLikeStringify } from '../src/engine/canonical-json'
import { portfolioOptionsOf, resultHash, type RunSpec } from '../src/runs/spec'

/** The leaf serializer as src/engine/merkle.ts had it (ddeb686). */
function oldLeafJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity')
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(oldLeafJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${oldLeafJson(v)}`).join(',')}}`
}

/** The result-hash serializer as src/runs/spec.ts had it (ddeb686). */
function oldHashJson(v: unknown): string {
  return JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.keys(val).sort().map(k => [k, (val as Record<string, unknown>)[k]]))
      : val,
  )
}

const both = [canonicalJson, canonicalJsonLikeStringify]

describe('what both forms write alike', () => {
  test('keys are sorted at every depth, with no whitespace, arrays keep their order', () => {
    for (const f of both) expect(f({ b: 1, a: { d: [1, 'x', [[3], []]], c: null } })).toBe('{"a":{"c":null,"d":[1,"x",[[3],[]]]},"b":1}')
  })

  test('keys are ordered by UTF-16 code units: upper case before lower, an astral character before U+FF5E', () => {
    // by code points U+FF5E (～) would come before U+1F600 (😀); its first code unit 0xD83D is smaller
    for (const f of both) expect(f({ '～': 1, '😀': 2, a: 3, B: 4, ab: 5, '': 6 })).toBe('{"":6,"B":4,"a":3,"ab":5,"😀":2,"～":1}')
  })

  test("keys and strings are escaped as JSON.stringify escapes them: quotes, controls, lone surrogates; other characters as they are", () => {
    for (const f of both) expect(f({ 'k"\\\n\u0001': 'é\ud800' })).toBe('{"k\\"\\\\\\n\\u0001":"é\\ud800"}')
  })

  test('numbers are in the shortest round-trip form and -0 is 0', () => {
    for (const f of both) expect(f([-0, 0.1, 1e21, 5e-7, 123456789012345680000, -1.5])).toBe('[0,0.1,1e+21,5e-7,123456789012345680000,-1.5]')
  })

  test('an undefined property is an absent key', () => {
    for (const f of both) expect(f({ a: undefined, b: { c: undefined } })).toBe('{"b":{}}')
  })

  test('a value with no JSON text of its own (undefined, a function, a symbol) is refused, a BigInt too', () => {
    for (const f of both) for (const v of [undefined, () => 1, Symbol('s'), 1n, { a: 1n }]) expect(() => f(v)).toThrow(TypeError)
  })
})

describe('the strict form (Merkle leaves, trust verify)', () => {
  test('refuses NaN and ±Infinity at any depth', () => {
    for (const v of [Number.NaN, { x: Number.POSITIVE_INFINITY }, [[Number.NEGATIVE_INFINITY]]]) expect(() => canonicalJson(v)).toThrow(TypeError)
  })

  test('refuses undefined, a function or a symbol in an array, and a hole (the old one wrote "[]" or "[1,,2]")', () => {
    expect(oldLeafJson([undefined])).toBe('[]')
    expect(oldLeafJson([1, undefined, 2])).toBe('[1,,2]')
    for (const v of [[undefined], [1, undefined, 2], [() => 1], [Symbol('s')], [1, , 2]]) expect(() => canonicalJson(v)).toThrow(TypeError)
  })

  test('refuses a function or a symbol as a property (the old one wrote "k":undefined)', () => {
    expect(oldLeafJson({ k: () => 1 })).toBe('{"k":undefined}')
    for (const v of [{ k: () => 1 }, { k: Symbol('s') }]) expect(() => canonicalJson(v)).toThrow(TypeError)
  })

  test('orders array-index keys by code units like every other key', () => {
    expect(canonicalJson({ 9: 'a', 10: 'b', x: 'c', '01': 'd' })).toBe('{"01":"d","10":"b","9":"a","x":"c"}')
  })

  test('does not call toJSON: an object is its own enumerable keys, so a Date is {}', () => {
    expect(canonicalJson({ d: new Date(0), o: { toJSON: undefined, a: 1 } })).toBe('{"d":{},"o":{"a":1}}')
  })
})

describe('the JSON.stringify-like form (result hashes, day files, cache keys)', () => {
  test('writes NaN and ±Infinity as null', () => {
    expect(canonicalJsonLikeStringify({ a: Number.NaN, b: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] })).toBe('{"a":null,"b":[null,null]}')
  })

  test('writes undefined, a function, a symbol or a hole in an array as null and leaves them out of an object', () => {
    expect(canonicalJsonLikeStringify({ a: [undefined, () => 1, Symbol('s'), , 1], f: () => 1, s: Symbol('s') })).toBe('{"a":[null,null,null,null,1]}')
  })

  test('puts array-index keys first in numeric order ("01" and 2^32-1 are not indices), as JSON.stringify of a sorted copy does', () => {
    expect(canonicalJsonLikeStringify({ b: 1, 4294967295: 2, 4294967294: 3, 10: 4, 9: 5, '01': 6, '-1': 7, 0: 8 })).toBe(
      '{"0":8,"9":5,"10":4,"4294967294":3,"-1":7,"01":6,"4294967295":2,"b":1}',
    )
  })

  test('calls toJSON with the key (a Date is its ISO text) and sorts what it returns', () => {
    const seen: string[] = []
    const v = { d: new Date(0), x: [{ toJSON: (k: string) => (seen.push(k), { z: 1, a: 2 }) }] }
    expect(canonicalJsonLikeStringify(v)).toBe('{"d":"1970-01-01T00:00:00.000Z","x":[{"a":2,"z":1}]}')
    expect(seen).toEqual(['0'])
  })

  test('a stored result hash does not move', () => {
    const spec = {
      kind: 'simulate', name: 'rsi-oversold-long', strategyId: 'rsi-oversold-long', direction: 'long', directionSource: 'request',
      strategy: { indicators: { rsi: { period: 14 } }, entry: { all: [{ indicator: 'rsi', op: '<', value: 30 }] } },
      avoidHours: [0, 1], avoidMonths: null, minVolRegime: null, slPct: 2, tpPct: 4, tpSource: 'request', trailingPct: null,
      maxBars: 48, marketType: 'futures', leverage: 1, feeFrac: 0.0004, timeframe: '1H', startDate: '2025-01-01', endDate: null,
      topN: 50, symbols: null, includeStablecoins: false, perCoinUsd: 100, maxConcurrent: 10, compounding: false,
    } as unknown as RunSpec
    // written by src/runs/spec.ts at ddeb686
    expect(resultHash(spec, 'v1')).toBe('46fa42fd9b9ce019bb490a771d01f96c6743eac361c63a604d6d5e4b953eeb8c')
    // stored before stop_at_ruin existed: it ran on fresh capital, and is recomputed that way under its own hash
    expect(portfolioOptionsOf(spec, 50).stopAtRuin).toBe(false)
    // a request made now names the setting either way, so its results never mix with those
    expect(resultHash({ ...spec, stopAtRuin: false }, 'v1')).not.toBe(resultHash(spec, 'v1'))
    expect(resultHash({ ...spec, stopAtRuin: true }, 'v1')).not.toBe(resultHash({ ...spec, stopAtRuin: false }, 'v1'))
  })
})

// Values as JSON sees them and as JavaScript may hand them over: every number double
// (NaN, ±Infinity, -0), strings of any UTF-16 units, keys that are array indices or look
// like them, undefined, functions, symbols, Dates, sparse arrays.
const keyArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom('0', '1', '9', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__', 'toJSON', 'a', 'B'),
)
const leafArb = fc.oneof(
  fc.constant(null), fc.boolean(), fc.double(), fc.integer(), fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constant(undefined), fc.constant(() => 1), fc.constant(Symbol('s')), fc.date({ noInvalidDate: true }),
)
const { value: anyValue } = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafArb, fc.sparseArray(tie('value'), { maxLength: 4 }), fc.array(tie('value'), { maxLength: 4 }), objectOf(tie('value'))),
}))
/** own data properties built with Object.fromEntries, so "__proto__" and "toJSON" are plain keys */
function objectOf(v: fc.Arbitrary<unknown>) {
  return fc.array(fc.tuple(keyArb, v), { maxLength: 5 }).map(entries => Object.fromEntries(entries))
}

/** The text, or the fact that there is none (thrown, or the old serializers' undefined). */
function outcome(f: (v: unknown) => string, v: unknown): string {
  try {
    const text = f(v)
    return text === undefined ? '<no text>' : text
  } catch {
    return '<no text>'
  }
}

/** Whether a value holds something the strict form refuses (it throws exactly then). */
function refusedByStrict(v: unknown, inArray = true): boolean {
  if (typeof v === 'number') return !Number.isFinite(v)
  if (v === undefined) return inArray
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return true
  if (v === null || typeof v !== 'object') return false
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (refusedByStrict(v[i])) return true
    return false
  }
  return Object.values(v).some(x => refusedByStrict(x, false))
}

describe('properties against the old serializers', () => {
  test('the JSON.stringify-like form writes what the old result-hash serializer wrote, for every value', () => {
    fc.assert(fc.property(anyValue, v => expect(outcome(canonicalJsonLikeStringify, v)).toBe(outcome(oldHashJson, v))), { numRuns: 3000 })
  })

  test('the strict form writes what the old leaf serializer wrote, and refuses exactly the values with no JSON text', () => {
    fc.assert(
      fc.property(anyValue, v => {
        if (refusedByStrict(v)) expect(() => canonicalJson(v)).toThrow(TypeError)
        else expect(canonicalJson(v)).toBe(oldLeafJson(v))
      }),
      { numRuns: 3000 },
    )
  })

  test('on parsed JSON without array-index keys the two forms are one text', () => {
    const noIndexKeys = (v: unknown): boolean =>
      v === null || typeof v !== 'object' ? true : Array.isArray(v) ? v.every(noIndexKeys) : Object.entries(v).every(([k, x]) => !/^(0|[1-9]\d*)$/.test(k) && noIndexKeys(x))
    fc.assert(
      fc.property(fc.jsonValue().filter(noIndexKeys), v => expect(canonicalJson(v)).toBe(canonicalJsonLikeStringify(v))),
      { numRuns: 1000 },
    )
  })
})
