/** GET /openapi.json: OpenAPI 3.1.0 of the public routes, no documentation UI. */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { ConditionNodeSchema } from '../strategies/condition-schema'
import { VERSION } from '../version'
import { isDay, isIsoInstant } from '../time'
import EXAMPLES from './openapi-examples.json'
import { Detail as NotFoundBody, Overloaded as OverloadedBody, RateLimited as RateLimitedBody, ValidationErrors as ValidationErrorBody } from '../model/shared'
import { limitClassOf } from './rate-limit'

/** RFC 3339 full-date (JSON Schema's `date` format): YYYY-MM-DD naming a real calendar day (`parseDay`'s days, src/time.ts). */
export const isFullDate = (value: string): boolean => isDay(value)

// Importing @elysiajs/openapi replaces TypeBox's global `date` format with a check that
// builds a Zod schema on every call (about 30 µs); a run's response carries three daily
// curves of up to 731 points each, so response validation alone cost ~50–100 ms.
FormatRegistry.Set('date', value => isFullDate(value))

/** The `date-time` check the libraries registered (Elysia's: its ISO 8601 patterns, then a valid `Date`). */
export const givenDateTime = FormatRegistry.Get('date-time')

// A run answer's trades carry about 2,000 instants, each checked by that function (a quote
// strip, three patterns and a Date parse: about 0.3 µs). The instants the API writes
// (`isoInstant`'s form, a real day and time) are accepted at once: that check accepts every
// one of them too (its pattern `\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\dZ` and a valid
// Date), so the format accepts and refuses exactly what it did; any other string is its.
if (givenDateTime) FormatRegistry.Set('date-time', value => isIsoInstant(value) || givenDateTime(value))

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Drop every defaulted property from its object's `required` list, at any depth of a schema. */
function optionalDefaultsIn(schema: unknown, depth = 0): void {
  if (depth > 32) return
  if (Array.isArray(schema)) return schema.forEach(s => optionalDefaultsIn(s, depth + 1))
  if (!isObj(schema)) return
  const props = schema.properties
  if (isObj(props) && Array.isArray(schema.required)) {
    schema.required = schema.required.filter(k => !(isObj(props[k as string]) && (props[k as string] as Json).default !== undefined))
    if ((schema.required as unknown[]).length === 0) delete schema.required
  }
  for (const v of Object.values(schema)) if (typeof v === 'object') optionalDefaultsIn(v, depth + 1)
}

/**
 * @elysiajs/openapi 1.4 marks a field with a default as required, so a generated
 * client would force every one of them: in request bodies and parameters a default makes
 * the field optional, as the service treats it.
 */
export function optionalDefaults(doc: unknown): unknown {
  if (!isObj(doc) || !isObj(doc.paths)) return doc
  for (const item of Object.values(doc.paths)) {
    if (!isObj(item)) continue
    for (const op of Object.values(item)) {
      if (!isObj(op)) continue
      if (isObj(op.requestBody)) optionalDefaultsIn(op.requestBody.content)
      if (Array.isArray(op.parameters))
        for (const p of op.parameters) if (isObj(p) && isObj(p.schema) && p.schema.default !== undefined) p.required = false
    }
  }
  return doc
}

/** A rewrite of every schema node below `node`, children first (the document is plain JSON). */
function mapSchemas(node: unknown, fn: (o: Json) => Json, depth = 0): unknown {
  if (depth > 64) return node
  if (Array.isArray(node)) return node.map(v => mapSchemas(v, fn, depth + 1))
  if (!isObj(node)) return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node)) out[k] = typeof v === 'object' ? mapSchemas(v, fn, depth + 1) : v
  return fn(out)
}

const coercingString = (s: unknown) => isObj(s) && s.type === 'string' && (s.format === 'integer' || s.format === 'numeric')

/**
 * Elysia's t.Integer and t.Numeric are transforms that also accept a numeric string (so a
 * query value or a body field "5" is read as 5); the generator publishes that as
 * `anyOf: [{type: string, format: integer, default: 0}, {type: integer}]`, so a generated
 * client typed every integer `string | number` and read a default of 0 where there was none.
 * The document says what the service means: a number, with the field's own default.
 */
export function plainNumbers(schema: Json): Json {
  const alts = schema.anyOf
  if (!Array.isArray(alts) || alts.length !== 2 || !alts.some(coercingString)) return schema
  const num = alts.find(a => !coercingString(a))
  if (!isObj(num) || (num.type !== 'integer' && num.type !== 'number')) return schema
  const { anyOf: _, ...outer } = schema
  return { ...outer, ...num }
}

/**
 * Schemas published once under components: the condition tree (recursive, so it cannot be
 * inlined) and the error bodies every operation shares. A schema in a model that carries
 * `'x-component': name` is shown as a reference to that component (the model itself keeps a
 * plain object: a tree is checked by validateStrategy, whose messages are more precise).
 */
function componentSchemas(): Record<string, unknown> {
  const plain = (s: TSchema) => JSON.parse(JSON.stringify(s)) as Json
  const node = plain(ConditionNodeSchema)
  delete node.$id
  // the node kinds exclude each other (by `type`, or for a leaf by having none): a oneOf
  node.oneOf = node.anyOf
  delete node.anyOf
  const tree = mapSchemas(node, o => (o.$ref === 'ConditionNode' ? { $ref: '#/components/schemas/ConditionNode' } : o))
  return {
    ConditionNode: tree,
    ValidationError: plain(ValidationErrorBody),
    NotFound: plain(NotFoundBody),
    RateLimited: plain(RateLimitedBody),
    Overloaded: plain(OverloadedBody),
  }
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` })

const ANY_KEY = '^(.*)$'

/**
 * TypeBox writes a record keyed by any string as `patternProperties: {"^(.*)$": S}`, which
 * generators read as an object with no properties at all (openapi-typescript: a record of
 * `never`): the same rule as `additionalProperties: S`, which every generator reads.
 */
export function plainRecords(o: Json): Json {
  const pp = o.patternProperties
  const object = o.type === 'object' || (Array.isArray(o.type) && o.type.includes('object'))
  if (!object || !isObj(pp) || Object.keys(pp).length !== 1 || !isObj(pp[ANY_KEY]) || o.properties !== undefined) return o
  const { patternProperties: _, ...rest } = o
  return { ...rest, additionalProperties: pp[ANY_KEY] }
}

/** The generator folds `enum | null` (and `const | null`) into `type: [string, null]` and leaves null out of the values. */
function nullableEnums(o: Json): Json {
  if (!Array.isArray(o.type) || !o.type.includes('null')) return o
  if (o.const !== undefined && o.const !== null) {
    const { const: value, ...rest } = o
    return { ...rest, enum: [value, null] }
  }
  if (!Array.isArray(o.enum) || o.enum.includes(null)) return o
  return { ...o, enum: [...o.enum, null] }
}

/**
 * A response schema shows what is sent: a `default` there (t.UnionEnum publishes its first
 * value as one) means nothing to a client, and a generator may read it as "may be absent".
 */
function withoutDefaults(schema: unknown, depth = 0): void {
  if (!isObj(schema) || depth > 64) return
  delete schema.default
  if (isObj(schema.properties)) for (const p of Object.values(schema.properties)) withoutDefaults(p, depth + 1)
  for (const k of ['items', 'additionalProperties', 'not']) withoutDefaults(schema[k], depth + 1)
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) if (Array.isArray(schema[k])) for (const s of schema[k] as unknown[]) withoutDefaults(s, depth + 1)
}

/**
 * `x-component` to a reference; `x-documented-as` (an open object whose keys the service
 * checks itself, e.g. a bot's `params`) to the schema it names; Elysia's coercing numbers to
 * numbers; any-key records to additionalProperties.
 */
function documentedSchema(o: Json): Json {
  const name = o['x-component']
  const as = o['x-documented-as']
  if (typeof name !== 'string' && !isObj(as)) return nullableEnums(plainRecords(plainNumbers(o)))
  const shown = typeof name === 'string' ? ref(name) : (JSON.parse(JSON.stringify(as)) as Json)
  const described = typeof o.description === 'string' ? { ...shown, description: o.description } : shown
  // the generator folds `X | null` into `type: [object, null]` on X itself: keep the null
  return Array.isArray(o.type) && o.type.includes('null') ? { anyOf: [described, { type: 'null' }] } : described
}

/**
 * Defaults the service applies itself rather than the validator, so the schema cannot carry
 * them: the card routes' `dir` (a registry id that names its side keeps it; docs/cards.md)
 * and /backtest's `direction` (left out, `direction_source` says `default_short`).
 */
const SERVICE_DEFAULTS: Record<string, Record<string, { default: unknown; description?: string }>> = {
  'GET /share': { dir: { default: 'long', description: "the side of a family id without one (bb-squeeze); a registry id that names its side (bb-squeeze-short) keeps it, and a contradicting dir is a 422" } },
  'GET /og': { dir: { default: 'short', description: "the side of a family id without one (bb-squeeze); a registry id that names its side (bb-squeeze-long) keeps it, and a contradicting dir is a 422" } },
  'POST /backtest': { direction: { default: 'short' } },
}

/** Each SERVICE_DEFAULTS entry onto its query parameter or JSON body property. */
function serviceDefaults(doc: Json): void {
  for (const [key, fields] of Object.entries(SERVICE_DEFAULTS)) {
    const [method, path] = key.split(' ')
    const op = isObj(doc.paths) && isObj(doc.paths[path]) ? (doc.paths[path] as Json)[method.toLowerCase()] : undefined
    if (!isObj(op)) continue
    const targets: Json = {}
    if (Array.isArray(op.parameters)) for (const p of op.parameters) if (isObj(p) && isObj(p.schema) && typeof p.name === 'string') targets[p.name] = p.schema
    const body = isObj(op.requestBody) && isObj(op.requestBody.content) ? op.requestBody.content['application/json'] : undefined
    if (isObj(body) && isObj(body.schema) && isObj(body.schema.properties)) Object.assign(targets, body.schema.properties)
    for (const [name, shown] of Object.entries(fields)) if (isObj(targets[name])) Object.assign(targets[name] as Json, shown)
  }
}

/**
 * The 404s of the routes that answer a Response of their own (CSV, PNG), whose response map
 * the generator cannot read, and when. Every other operation with a 404 declares it in its
 * response map (`404: Detail`).
 */
const NOT_FOUND: Record<string, string> = {
  '/export/csv': 'no run produced that result hash',
  '/og': 'no registry strategy or builder preset has that id',
}

const json = (schema: Json) => ({ 'application/json': { schema } })

const text = (media: string, description: string) => ({ description, content: { [media]: { schema: { type: 'string' } } } })
const page = (what: string) => text('text/html', what)
/**
 * The answers of routes that reply with a Response of their own (CSV, PNG, HTML, the stored
 * bytes of a day file), which the generator cannot see: their media types, by "METHOD path".
 */
const MEDIA_ANSWERS: Record<string, Record<string, Json>> = {
  'GET /export/csv': { '200': text('text/csv', 'every trade of the result, one row each, after a header row (Content-Disposition: attachment)') },
  'GET /rankings/files/{date}': {
    '200': {
      description: 'the day file as published, byte for byte (canonical JSON); X-Content-SHA256 and the ETag are its sha256',
      headers: { 'X-Content-SHA256': { schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } } },
      content: json({ type: 'object', additionalProperties: true }),
    },
  },
  'GET /rankings/criteria': { '200': page('the ranking rules as a page') },
  'GET /events': { '200': text('text/event-stream', 'the push feed as Server-Sent Events: `retry:` once, then `id:`, `event:` and `data:` (one JSON record) per event, heartbeat comments (docs/events.md)') },
  'GET /research/sweeps/{id}/events': {
    '200': text('text/event-stream', 'a sweep as Server-Sent Events: `retry:` once, then `trial` (id: its number in the ledger), `progress` and `state` events, heartbeat comments; it ends once the sweep has stopped (docs/api-research.md)'),
  },
  'GET /research/walk-forward/{id}/events': {
    '200': text('text/event-stream', 'a walk-forward run as Server-Sent Events: `retry:` once, then `trial` (each in-sample trial, id: its number in the ledger), `progress` and `state` events; it ends once the run has stopped (docs/api-research.md)'),
  },
  'GET /og': { '200': { description: '1200×630 PNG card (304 with a matching If-None-Match)', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } } },
  'GET /share': {
    '200': page('the share page: social-preview tags, noindex, and a redirect to the simulator with the settings'),
    '404': page('no registry strategy or builder preset has that id: a page that says so, in the asked language'),
  },
  'GET /api/subscribe/confirm': { '200': page('the subscription is confirmed (or was already)'), '403': page('the link is not valid for that address') },
  'GET /api/unsubscribe': { '200': page('the address is unsubscribed (or was not subscribed)'), '403': page('the link is not valid for that address') },
  'POST /api/unsubscribe': { '200': text('text/plain', 'unsubscribed (RFC 8058 one-click)'), '403': text('text/plain', 'the link is not valid for that address') },
}
/** Routes outside the compute class that still start a run on a request (on a cache miss), so a full run queue sheds them too. */
const RUNS_ON_REQUEST = new Set(['/hot-strategies'])

const RETRY_AFTER = { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } }

/**
 * The refusals every operation can meet, on each: 422 when it takes input, 429 on every
 * rate-limited route, 503 on the compute routes (load shedding, a full run queue) and on
 * the others that start a run, both with Retry-After; and 404 where the route has one.
 */
export function errorResponses(doc: unknown): unknown {
  if (!isObj(doc) || !isObj(doc.paths)) return doc
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObj(item)) continue
    for (const [method, op] of Object.entries(item)) {
      if (!isObj(op)) continue
      const responses = (op.responses = isObj(op.responses) ? op.responses : {}) as Json
      for (const [status, answer] of Object.entries(MEDIA_ANSWERS[`${method.toUpperCase()} ${path}`] ?? {})) responses[status] ??= answer
      for (const r of Object.values(responses)) if (isObj(r) && isObj(r.content)) for (const m of Object.values(r.content)) if (isObj(m)) withoutDefaults(m.schema)
      const takesInput = (Array.isArray(op.parameters) && op.parameters.length > 0) || op.requestBody !== undefined
      if (takesInput && !responses['422'])
        responses['422'] = { description: 'a field breaks a rule: each entry names the field, the rule and the input', content: json(ref('ValidationError')) }
      if (NOT_FOUND[path] && !responses['404']) responses['404'] = { description: NOT_FOUND[path], content: json(ref('NotFound')) }
      const limit = limitClassOf(path.replace(/\{(\w+)\}/g, ':$1'))
      // a route's own 429 (the sweeps' running limit beside the rate limit) is kept
      if (limit && !responses['429'])
        responses['429'] = { description: 'over the rate limit of this kind of endpoint', headers: RETRY_AFTER, content: json(ref('RateLimited')) }
      if (limit === 'compute' || RUNS_ON_REQUEST.has(path))
        responses['503'] = { description: 'the service is overloaded (run queue full or event loop late)', headers: RETRY_AFTER, content: json(ref('Overloaded')) }
      // a route's own 429 / 503 (GET /events' stream limits) carries Retry-After too
      for (const status of ['429', '503']) {
        const r = responses[status]
        if (isObj(r) && !isObj(r.headers)) r.headers = RETRY_AFTER
      }
    }
  }
  return doc
}

interface Examples {
  operations: Record<string, { request?: unknown; responses: Record<string, unknown> }>
  components: Record<string, unknown>
}

/**
 * Real requests and the service's answers to them (scripts/openapi-examples.ts writes the
 * file from a run on real candles): each operation's JSON request body and responses carry
 * theirs as `example`, each error body schema as `examples`.
 */
export function withExamples(doc: Json, examples: Examples = EXAMPLES as Examples): Json {
  const paths = isObj(doc.paths) ? doc.paths : {}
  for (const [key, ex] of Object.entries(examples.operations)) {
    const [method, path] = key.split(' ')
    const op = isObj(paths[path]) ? (paths[path] as Json)[method.toLowerCase()] : undefined
    if (!isObj(op)) continue
    const body = isObj(op.requestBody) && isObj(op.requestBody.content) ? op.requestBody.content['application/json'] : undefined
    if (ex.request !== undefined && isObj(body)) body.example = ex.request
    for (const [status, answer] of Object.entries(ex.responses)) {
      const res = isObj(op.responses) ? op.responses[status] : undefined
      const media = isObj(res) && isObj(res.content) ? res.content['application/json'] : undefined
      if (isObj(media) && !(isObj(media.schema) && typeof media.schema.$ref === 'string')) media.example = answer
    }
  }
  const schemas = isObj(doc.components) && isObj(doc.components.schemas) ? doc.components.schemas : {}
  for (const [name, answer] of Object.entries(examples.components)) if (isObj(schemas[name]) && answer !== undefined) (schemas[name] as Json).examples = [answer]
  return doc
}

/** The published document: the generator's, made true to the service (see each step). */
export function publicDocument(doc: unknown, routes: readonly RouteBody[]): unknown {
  if (!isObj(doc)) return doc
  const out = mapSchemas(optionalDefaults(jsonRequestBodies(doc, routes)), documentedSchema) as Json
  serviceDefaults(out)
  out.components = { ...(isObj(out.components) ? out.components : {}), schemas: { ...(isObj(out.components) && isObj(out.components.schemas) ? out.components.schemas : {}), ...componentSchemas() } }
  return withExamples(errorResponses(out) as Json)
}

export interface RouteBody {
  method: string
  path: string
  hooks: { body?: unknown }
}

/**
 * Bodies are parsed by http/json-body.ts, a function parser the generator cannot name, so
 * it leaves `content` empty: every such body is application/json with the route's schema.
 */
export function jsonRequestBodies(doc: unknown, routes: readonly RouteBody[]): unknown {
  if (!isObj(doc) || !isObj(doc.paths)) return doc
  for (const r of routes) {
    if (!r.hooks?.body) continue
    const item = doc.paths[r.path.replace(/:(\w+)/g, '{$1}')]
    const op = isObj(item) ? item[r.method.toLowerCase()] : undefined
    if (!isObj(op) || !isObj(op.requestBody) || !isObj(op.requestBody.content)) continue
    if (Object.keys(op.requestBody.content).length === 0) op.requestBody.content = { 'application/json': { schema: JSON.parse(JSON.stringify(r.hooks.body)) } }
  }
  return doc
}

/** `routes`: the finished app's route table, read when the document is asked for. */
export function openapiPlugin(routes: () => readonly RouteBody[] = () => []) {
  // the hook first: hooks reach only routes registered after them
  // the generator keeps its document; the published one is made once per document (about 10 ms)
  const published = new WeakMap<object, unknown>()
  return new Elysia({ name: 'openapi-document' })
    .onAfterHandle({ as: 'global' }, ({ route, response }) => {
      if (route !== '/openapi.json' || !isObj(response)) return
      if (!published.has(response)) published.set(response, publicDocument(response, routes()))
      return published.get(response) as Record<string, unknown>
    })
    .use(openapiGenerator())
}

function openapiGenerator() {
  return openapi({
    provider: null,
    specPath: '/openapi.json',
    openapiVersion: '3.1.0',
    documentation: {
      info: {
        title: 'perpsim',
        version: VERSION,
        description:
          'Backtests of crypto perpetual-futures strategies with realistic costs (fees, funding, leverage, liquidation), and the market data around them.',
      },
    },
    // internal and operator routes stay out of the public description
    exclude: { paths: [/^\/metrics/, /^\/trust\/real-track/, /^\/real-mode-checklist/, /^\/internal/] },
  })
}
