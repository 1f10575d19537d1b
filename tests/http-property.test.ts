/**
 * Property: for every route in /openapi.json, generated and mutated bodies, queries and path
 * parameters never give a 5xx; a refused input is answered within 1 s; every error is in
 * the contract's shape (422: a list of {type, loc, msg, input}; others: a `detail`).
 * Bounded run counts keep it to a few seconds (fast-check, seeded: a failure replays).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const NOW = Date.UTC(2025, 5, 1)
const T0 = NOW - 30 * 24 * 3_600_000
const h = makeHarness({ nowMs: NOW, fill: s => fillWalkUniverse(s, ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'], T0, 30, 11) })
afterAll(() => h.cleanup())

type Schema = Record<string, any>
interface Operation {
  method: string
  path: string
  params: { name: string; in: string; schema: Schema }[]
  body: Schema | null
}

const RUNS_PER_ROUTE = 50
const SEED = 19

/** Values that have broken parsers before: extremes, wrong kinds, hostile strings. */
const hostileScalar = fc.oneof(
  fc.constantFrom(0, -1, 1e308, -1e308, 5e-324, 2 ** 53, 0.1, 1e21, '', ' ', 'null', 'NaN', 'Infinity', '-0', '1e309', '__proto__', 'constructor', '../../etc/passwd', '%00', '\u0000', '\u202e', 'x'.repeat(5000), true, false, null),
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
)
/** nested arrays up to 10,000 deep, and wide ones: what blocked the event loop or overflowed the stack */
const deepArray = fc.integer({ min: 1, max: 10_000 }).map(n => {
  let v: unknown = []
  for (let i = 1; i < n; i++) v = [v]
  return v
})
const wideArray = fc.integer({ min: 1000, max: 60_000 }).map(n => Array.from({ length: n }, (_, i) => i))
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: hostileScalar },
  { weight: 1, arbitrary: deepArray },
  { weight: 1, arbitrary: wideArray },
  { weight: 2, arbitrary: fc.array(hostileScalar, { maxLength: 5 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), hostileScalar, { maxKeys: 4 }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
)

/** A plausible value for a schema (its default, its bounds, an enum member), or a hostile one. */
function valueFor(s: Schema | undefined): fc.Arbitrary<unknown> {
  const plausible: unknown[] = []
  if (!s) return hostileValue
  if (s.default !== undefined) plausible.push(s.default)
  for (const alt of [s, ...((s.anyOf ?? []) as Schema[])]) {
    if (Array.isArray(alt.enum)) plausible.push(...alt.enum)
    if (alt.const !== undefined) plausible.push(alt.const)
    for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) if (typeof alt[k] === 'number') plausible.push(alt[k], alt[k] + 1, alt[k] - 1)
    if (alt.type === 'string' && alt.pattern === '^\\d{4}-\\d{2}-\\d{2}$') plausible.push('2025-05-10', '2025-02-30')
    if (alt.type === 'array') plausible.push([], [1], ['BTCUSDT'])
  }
  return plausible.length ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...plausible) }, { weight: 1, arbitrary: hostileValue }) : hostileValue
}

function bodyFor(s: Schema): fc.Arbitrary<string> {
  const props = Object.entries((s.properties ?? {}) as Record<string, Schema>)
  const object = fc
    .tuple(...props.map(([k, p]) => fc.option(valueFor(p).map(v => [k, v] as const), { nil: undefined, freq: 2 })), fc.dictionary(fc.string({ maxLength: 6 }), hostileScalar, { maxKeys: 2 }))
    .map(parts => {
      const extra = parts.pop() as Record<string, unknown>
      const o: Record<string, unknown> = { ...extra }
      for (const kv of parts as (readonly [string, unknown] | undefined)[]) if (kv) o[kv[0]] = kv[1]
      return JSON.stringify(o)
    })
  // mutations of the text itself: cut short, a prototype key, a non-object, deep nesting
  const mutated = object.chain(text =>
    fc.oneof(
      fc.constant(text),
      fc.nat({ max: Math.max(0, text.length - 1) }).map(n => text.slice(0, n)),
      fc.constant(text.replace('{', '{"__proto__":{"x":1},')),
      fc.constantFrom('null', '[]', '123', '"s"', '', '{', `{"a":${'['.repeat(40)}${']'.repeat(40)}}`),
    ),
  )
  return fc.oneof({ weight: 3, arbitrary: object }, { weight: 2, arbitrary: mutated })
}

/** A generated value as it would appear in a URL (objects as their JSON). */
const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'))

function operations(doc: any): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>))
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      })
    }
  return out
}

function expectContractShape(status: number, text: string, contentType: string | null) {
  expect(status).toBeLessThan(500)
  if (status < 400) return
  // pages for people (a signed link opened from an e-mail) answer their refusals as a page;
  // a validation failure is JSON everywhere
  if (status !== 422 && /^text\/(html|plain)/.test(contentType ?? '')) return
  expect(contentType ?? '').toContain('application/json')
  const body = JSON.parse(text)
  expect(body).toHaveProperty('detail')
  if (status === 422) {
    expect(Array.isArray(body.detail)).toBe(true)
    expect(body.detail.length).toBeGreaterThan(0)
    for (const d of body.detail) {
      expect(Array.isArray(d.loc)).toBe(true)
      expect(typeof d.msg).toBe('string')
      expect(typeof d.type).toBe('string')
      expect('input' in d).toBe(true)
      // the rule in words, never the validator's raw phrasing ("Expected …", "should be one of: 'undefined', 'null'")
      expect(d.msg).not.toMatch(/^Expected |should be one of: '(undefined|null|string|number|boolean|integer)'|^Invalid input$/)
    }
  }
}

describe('every route in /openapi.json', async () => {
  const doc = (await h.req('/openapi.json')).body
  const ops = operations(doc)

  test('the document lists the routes (a guard against testing nothing)', () => {
    expect(ops.length).toBeGreaterThan(15)
    expect(ops.some(o => o.body)).toBe(true)
  })

  for (const op of ops) {
    test(`${op.method} ${op.path}`, async () => {
      const pathParams = op.params.filter(p => p.in === 'path')
      const queryParams = op.params.filter(p => p.in === 'query')
      const input = fc.record({
        path: fc.tuple(...pathParams.map(p => fc.oneof(valueFor(p.schema), fc.constantFrom('BTCUSDT', 'bb-squeeze-long', 'momentum')).map(asText))),
        query: fc.tuple(...queryParams.map(p => fc.option(valueFor(p.schema).map(asText), { nil: undefined }))),
        body: op.body ? bodyFor(op.body) : fc.constant(null),
      })
      await fc.assert(
        fc.asyncProperty(input, async ({ path, query, body }) => {
          let url = op.path
          pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(path[i] as string))))
          const qs = new URLSearchParams()
          queryParams.forEach((p, i) => query[i] !== undefined && qs.set(p.name, query[i] as string))
          const started = performance.now()
          const res = await h.app.handle(
            new Request(`http://localhost${url}${qs.size ? `?${qs}` : ''}`, {
              method: op.method,
              headers: body !== null ? { 'content-type': 'application/json' } : {},
              body: body ?? undefined,
            }),
          )
          const text = await res.text()
          const ms = performance.now() - started
          expectContractShape(res.status, text, res.headers.get('content-type'))
          if (res.status >= 400) expect(ms).toBeLessThan(1000)
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
      )
    }, 60_000)
  }
})
