/**
 * /openapi.json says what the service does: numbers as numbers with their real defaults,
 * the refusals each operation can answer (422, 404, 429, 503 with Retry-After), the
 * condition tree as one recursive oneOf, and examples that are real answers valid against
 * their schemas (checked with ajv, a JSON Schema 2020-12 validator).
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import Ajv2020 from 'ajv/dist/2020'
import { buildApp } from '../src/app'
import { isFullDate } from '../src/http/openapi'
import { limitClassOf } from '../src/http/rate-limit'
import { ConditionNodeSchema } from '../src/strategies/condition-schema'
import { listPresets } from '../src/strategies/presets'
import { makeHarness } from './helpers/harness'

const h = makeHarness()
afterAll(() => h.cleanup())
const doc = (await h.req('/openapi.json')).body

type Op = { method: string; path: string; op: any }
const operations: Op[] = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ method, path, op })),
)

/** every schema node of the document, with where it is */
function* schemaNodes(node: unknown, at = ''): Generator<[string, any]> {
  if (Array.isArray(node)) for (const [i, v] of node.entries()) yield* schemaNodes(v, `${at}/${i}`)
  else if (node && typeof node === 'object') {
    yield [at, node]
    for (const [k, v] of Object.entries(node)) yield* schemaNodes(v, `${at}/${k}`)
  }
}

/** ajv over the document: a schema of it is checked with its references to components resolved */
const ajv = new Ajv2020({ strict: false, allErrors: true })
ajv.addFormat('date', isFullDate)
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(s) && Number.isFinite(Date.parse(s)))
ajv.addSchema({ $id: 'https://perpsim.local/openapi.json', components: doc.components })
const compiled = new Map<string, ReturnType<typeof ajv.compile>>()
const check = (schema: unknown, value: unknown) => {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"https://perpsim.local/openapi.json#/components/')
  let validate = compiled.get(text)
  if (!validate) compiled.set(text, (validate = ajv.compile(JSON.parse(text))))
  return validate(value) ? [] : (validate.errors ?? []).map(e => `${e.instancePath} ${e.message}`)
}
const jsonSchemaOf = (content: any) => content?.['application/json']?.schema

describe('numbers', () => {
  test('no schema is the coercing string | integer pair any more: every integer is `type: integer`', () => {
    const coercing = [...schemaNodes(doc)].filter(([, s]) => s.type === 'string' && (s.format === 'integer' || s.format === 'numeric'))
    expect(coercing.map(([at]) => at)).toEqual([])
    const health = jsonSchemaOf(doc.paths['/health'].get.responses['200'].content).properties.coins_loaded
    expect(health).toEqual({ type: 'integer' })
  })

  test('request defaults are the real ones, and a field without a default shows none', () => {
    const param = (path: string, name: string) => doc.paths[path].get.parameters.find((p: any) => p.name === name).schema
    expect(param('/signals/scored', 'days')).toMatchObject({ type: 'integer', default: 14, minimum: 1, maximum: 90 })
    expect(param('/signals/scored', 'limit')).toMatchObject({ type: 'integer', default: 200 })
    expect(param('/share', 'topN')).toMatchObject({ type: 'integer', default: 10 })
    expect(param('/share', 'bars')).not.toHaveProperty('default')
    const backtest = jsonSchemaOf(doc.paths['/backtest'].post.requestBody.content).properties
    expect(backtest.max_bars).toMatchObject({ type: 'integer', default: 48, minimum: 1, maximum: 168 })
    expect(backtest.top_n.default).toBe(null)
    expect(backtest.top_n.anyOf).toEqual([{ type: 'integer', minimum: 1, maximum: 535 }, { type: 'null' }])
  })

  test("defaults the service applies itself are shown: /share's dir is the contract's long (/og's short), /backtest's direction short", () => {
    const dir = (path: string) => doc.paths[path].get.parameters.find((p: any) => p.name === 'dir').schema
    expect(dir('/share')).toMatchObject({ enum: ['long', 'short'], default: 'long' })
    expect(dir('/og')).toMatchObject({ enum: ['long', 'short'], default: 'short' })
    expect(dir('/share').description).toContain('bb-squeeze-short')
    // /backtest applies its own: direction_source then says default_short
    expect(jsonSchemaOf(doc.paths['/backtest'].post.requestBody.content).properties.direction.default).toBe('short')
  })

  test('an indicator-params record is an object of numbers a generator can read (additionalProperties, not a catch-all pattern)', () => {
    const indicators = jsonSchemaOf(doc.paths['/backtest'].post.requestBody.content).properties.indicators
    expect(indicators).toMatchObject({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'number' } } })
    expect(JSON.stringify(doc).includes('"^(.*)$"')).toBe(false)
  })
})

describe('the refusals of every operation', () => {
  test('422 {detail: [...]} on every operation that takes input', () => {
    for (const { method, path, op } of operations) {
      const takesInput = (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined
      if (!takesInput) continue
      expect([method, path, op.responses['422']?.content?.['application/json']?.schema]).toEqual([method, path, { $ref: '#/components/schemas/ValidationError' }])
    }
    const detail = doc.components.schemas.ValidationError
    expect(detail.required).toEqual(['detail'])
    expect(detail.properties.detail.items.required).toEqual(['type', 'loc', 'msg'])
  })

  test('429 with Retry-After on every rate-limited operation, 503 with Retry-After on every compute one', () => {
    for (const { method, path, op } of operations) {
      const cls = limitClassOf(path.replace(/\{(\w+)\}/g, ':$1'))
      const r429 = op.responses['429'], r503 = op.responses['503']
      // GET /events is outside the rate limits but has stream limits of its own: 429 per client, 503 for the service
      expect([method, path, r429 !== undefined]).toEqual([method, path, cls !== null || path === '/events'])
      // /hot-strategies is no compute route, but it starts a run on a cache miss
      expect([method, path, r503 !== undefined]).toEqual([method, path, cls === 'compute' || path === '/hot-strategies' || path === '/events'])
      for (const r of [r429, r503].filter(Boolean)) expect(r.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 })
    }
    expect(doc.paths['/simulate'].post.responses['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Overloaded' })
    expect(doc.paths['/coins'].get.responses['429'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RateLimited' })
    expect(doc.paths['/health'].get.responses['429']).toBeUndefined()
  })

  test('and its success: every operation documents a 2xx answer with its media type (CSV, PNG and HTML ones too)', () => {
    for (const { method, path, op } of operations) {
      const ok = Object.entries(op.responses as Record<string, any>).find(([status]) => status.startsWith('2'))
      expect([method, path, ok !== undefined && Object.keys(ok[1].content ?? {}).length > 0]).toEqual([method, path, true])
    }
    const media = (method: string, path: string) => Object.keys(doc.paths[path][method].responses['200'].content)
    expect(media('get', '/export/csv')).toEqual(['text/csv'])
    expect(media('get', '/og')).toEqual(['image/png'])
    expect(media('get', '/share')).toEqual(['text/html'])
  })

  test('404 where the route has one, including those its service raises', async () => {
    const with404 = operations.filter(o => o.op.responses['404']).map(o => `${o.method.toUpperCase()} ${o.path}`)
    for (const p of ['POST /simulate/dca', 'POST /simulate/grid', 'GET /export/csv', 'GET /og', 'GET /share', 'GET /rankings/files/{date}', 'GET /ohlcv/{symbol}', 'POST /simulate', 'POST /backtest', 'POST /simulate/coin', 'GET /builder/presets/{preset_id}'])
      expect(with404).toContain(p)
    // and each of those really answers 404
    expect((await h.req('/simulate/dca', { method: 'POST', json: { symbol: 'NOPEUSDT' } })).status).toBe(404)
    expect((await h.req('/backtest', { method: 'POST', json: { symbols: ['NOPEUSDT'], indicators: { rsi: {} }, entry: { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] } } })).status).toBe(404)
    expect((await h.req('/simulate/coin', { method: 'POST', json: { symbol: 'NOPEUSDT', strategy: 'ma-cross-long' } })).status).toBe(404)
    expect((await h.req(`/export/csv?hash=${'0'.repeat(64)}`)).status).toBe(404)
    expect((await h.req('/rankings/files/20240101')).status).toBe(404)
    expect((await h.req('/og?strategy=no-such-strategy')).status).toBe(404)
    expect((await h.req('/share?preset=no-such-strategy')).status).toBe(404)
    expect(with404).not.toContain('GET /coins')
  })

  test('the error bodies the HTTP layer really sends match their published schemas', async () => {
    const s = doc.components.schemas
    expect(check(s.ValidationError, (await h.req('/signals/scored?days=0')).body)).toEqual([])
    expect(check(s.ValidationError, (await h.req('/simulate', { method: 'POST', json: { strategy: 'x', top_n: 'many' } })).body)).toEqual([])
    expect(check(s.NotFound, (await h.req('/simulate/dca', { method: 'POST', json: { symbol: 'NOPEUSDT' } })).body)).toEqual([])
    const shed = makeHarness({ env: { SHED_LAG_MS: '200' } })
    try {
      const late = buildApp({ ...shed.deps, eventLoopLag: { lagMs: () => 2400 } })
      const res = await late.handle(new Request('http://localhost/simulate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"strategy":"ma-cross-long"}' }))
      const body = (await res.json()) as { retry_after_seconds: number }
      expect(res.status).toBe(503)
      expect(Number(res.headers.get('retry-after'))).toBe(body.retry_after_seconds)
      expect(check(s.Overloaded, body)).toEqual([])
    } finally {
      shed.cleanup()
    }
    const limited = makeHarness({ env: { RATE_LIMIT_OTHER_PER_MIN: '1' } })
    try {
      await limited.req('/coins')
      const r = await limited.req('/coins')
      expect(r.status).toBe(429)
      expect(Number(r.headers.get('retry-after'))).toBe(r.body.retry_after_seconds)
      expect(check(s.RateLimited, r.body)).toEqual([])
    } finally {
      limited.cleanup()
    }
  })
})

describe('the condition tree', () => {
  const node = doc.components.schemas.ConditionNode

  test('is one recursive oneOf of the four node kinds: group, NOT, ANY_PRIOR and leaf (our extensions included)', () => {
    expect(node.oneOf.map((k: any) => k.title)).toEqual(['GroupNode', 'NotNode', 'AnyPriorNode', 'ConditionLeaf'])
    expect(node.oneOf[0].properties.conditions.items).toEqual({ $ref: '#/components/schemas/ConditionNode' })
    const leaf = node.oneOf[3]
    expect(leaf.required).toEqual(['field', 'op'])
    expect(leaf.properties.op.anyOf.map((o: any) => o.const)).toContain('not_in')
    const kinds = leaf.properties.value.anyOf.map((v: any) => v.title ?? v.type)
    expect(kinds).toEqual(['number', 'boolean', 'array', 'FieldRef'])
    expect(JSON.stringify(doc)).not.toContain('"$id"')
  })

  test('request trees and served trees refer to it', () => {
    const ref = { $ref: '#/components/schemas/ConditionNode' }
    for (const path of ['/backtest', '/simulate/validate', '/simulate/optimize']) expect(jsonSchemaOf(doc.paths[path].post.requestBody.content).properties.entry).toMatchObject(ref)
    expect(jsonSchemaOf(doc.paths['/strategies'].get.responses['200'].content).items.properties.entry).toMatchObject(ref)
    expect(jsonSchemaOf(doc.paths['/builder/presets/{preset_id}'].get.responses['200'].content).properties.entry).toMatchObject(ref)
  })

  test('every served tree is a ConditionNode, by the published schema (ajv) and by the TypeBox one', async () => {
    const trees: [string, unknown][] = []
    for (const s of (await h.req('/strategies')).body) trees.push([s.id, s.entry], [s.id, s.exit_conditions])
    for (const p of listPresets()) {
      const full = (await h.req(`/builder/presets/${p.id}`)).body
      trees.push([p.id, full.entry], [p.id, full.exit_conditions])
    }
    expect(trees.length).toBeGreaterThan(100)
    for (const [id, tree] of trees.filter(([, t]) => t !== null)) {
      expect([id, check(node, tree)]).toEqual([id, []])
      expect([id, Value.Check(ConditionNodeSchema, tree)]).toEqual([id, true])
    }
  })

  test('and a tree that is none of the kinds is refused by it', () => {
    expect(check(node, { type: 'XOR', conditions: [] })).not.toEqual([])
    expect(check(node, { field: 'rsi', value: 30 })).not.toEqual([])
    expect(check(node, { type: 'AND', conditions: [{ field: 'rsi', op: '<', value: 30 }] })).toEqual([])
    expect(check(node, { type: 'ANY_PRIOR', bars: 5, condition: { field: 'close', op: 'in', value: [1, 2] } })).toEqual([])
  })
})

describe('examples', () => {
  const examples = (): { at: string; schema: unknown; value: unknown }[] => {
    const out: { at: string; schema: unknown; value: unknown }[] = []
    for (const { method, path, op } of operations) {
      const req = op.requestBody?.content?.['application/json']
      if (req?.example !== undefined) out.push({ at: `${method} ${path} request`, schema: req.schema, value: req.example })
      for (const [status, r] of Object.entries(op.responses as Record<string, any>)) {
        const media = r.content?.['application/json']
        if (media?.example !== undefined) out.push({ at: `${method} ${path} ${status}`, schema: media.schema, value: media.example })
      }
    }
    for (const [name, s] of Object.entries(doc.components.schemas as Record<string, any>)) for (const v of s.examples ?? []) out.push({ at: `components ${name}`, schema: s, value: v })
    return out
  }

  test('every operation that takes a JSON body shows a real request and its answer, and the client tour\'s reads show theirs', () => {
    const at = new Set(examples().map(e => e.at))
    for (const { method, path, op } of operations) if (op.requestBody?.content?.['application/json']) expect(at).toContain(`${method} ${path} request`)
    for (const a of ['post /simulate 200', 'post /backtest 200', 'get /rankings/daily 200', 'get /rankings/daily 404', 'get /signals/scored 200', 'post /simulate/dca 200', 'post /simulate/grid 200'])
      expect(at).toContain(a)
    for (const name of ['ValidationError', 'NotFound', 'RateLimited', 'Overloaded']) expect(at).toContain(`components ${name}`)
  })

  test('every example validates against its schema', () => {
    const all = examples()
    expect(all.length).toBeGreaterThan(30)
    for (const e of all) expect([e.at, check(e.schema, e.value)]).toEqual([e.at, []])
  })

  test('the check would catch an example that breaks its schema', () => {
    const simulate = jsonSchemaOf(doc.paths['/simulate'].post.responses['200'].content)
    const good = doc.paths['/simulate'].post.responses['200'].content['application/json'].example
    expect(check(simulate, good)).toEqual([])
    expect(check(simulate, { ...good, total_trades: '32' })).toEqual(['/total_trades must be integer'])
  })
})
