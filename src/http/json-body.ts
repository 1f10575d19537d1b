/**
 * Request bodies are parsed here, not by Elysia's default parser, so that hostile JSON is
 * refused before schema validation ever sees it (docs/api.md "Request bodies"):
 * - at most `maxBytes` bytes, counted while the stream is read (a chunked body has no
 *   Content-Length for the onRequest check to see): 413;
 * - at most MAX_JSON_DEPTH levels of nesting, found by a linear scan before JSON.parse:
 *   validating (and describing) a 10,000-deep value is what blocked the event loop;
 * - the top level must be a JSON object, sent as application/json;
 * - no `__proto__`, `constructor` or `prototype` keys anywhere: copied by assignment they
 *   would become an object's prototype and could satisfy a required field.
 * Every refusal is a 422 (or 413) in the contract's `{detail:[...]}` shape.
 */
import { Elysia } from 'elysia'
import { HttpError, kindsOf, ruleOf, unprocessable, boundedInput, type ValidationDetail } from './errors'

export const MAX_JSON_DEPTH = 32
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** The rest of an oversized body is not read: the connection closes after the answer. */
export function tooLarge(maxBytes: number, seen?: number): HttpError {
  return new HttpError(413, { detail: `Request body too large: ${seen === undefined ? 'over' : `${seen} bytes, over`} the limit of ${maxBytes} bytes` }, { connection: 'close' })
}

/** The deepest nesting of objects and arrays in a JSON text (strings skipped); stops early past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > max) {
        max = depth
        if (max > limit) return max
      }
    } else if (c === 125 || c === 93) depth--
  }
  return max
}

/** The path of the first forbidden key in a parsed JSON value, or null (the path is built only when one is found). */
export function forbiddenKeyPath(value: unknown): (string | number)[] | null {
  if (value === null || typeof value !== 'object') return null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i]
      if (v !== null && typeof v === 'object') {
        const p = forbiddenKeyPath(v)
        if (p) return [i, ...p]
      }
    }
    return null
  }
  for (const k in value) {
    if (FORBIDDEN_KEYS.has(k)) return [k]
    const v = (value as Record<string, unknown>)[k]
    if (v !== null && typeof v === 'object') {
      const p = forbiddenKeyPath(v)
      if (p) return [k, ...p]
    }
  }
  return null
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes, Number(declared))
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      void reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return new TextDecoder().decode(Buffer.concat(chunks))
}

const isJsonType = (ct: string) => /^application\/([\w.+-]*\+)?json\b/i.test(ct.trim())

/** Parse one request body under the rules above; throws HttpError (413/422). */
export async function parseJsonBody(request: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const contentType = request.headers.get('content-type') ?? ''
  const text = await readText(request, maxBytes)
  if (text.trim() === '') throw unprocessable([{ type: 'missing', loc: ['body'], msg: 'Field required: the body must be a JSON object', input: null }])
  if (!isJsonType(contentType))
    throw unprocessable([
      { type: 'content_type', loc: ['header', 'content-type'], msg: 'The body must be sent as Content-Type: application/json', input: contentType.slice(0, 100) || null },
    ])
  const depth = jsonDepth(text, MAX_JSON_DEPTH)
  if (depth > MAX_JSON_DEPTH)
    throw unprocessable([{ type: 'json_too_deep', loc: ['body'], msg: `JSON nested more than ${MAX_JSON_DEPTH} levels deep`, input: null }])
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw unprocessable([{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }])
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw unprocessable([
      { type: 'dict_type', loc: ['body'], msg: 'Input should be a JSON object', input: Array.isArray(value) ? '[array]' : (value as null | number | string | boolean) },
    ])
  const bad = forbiddenKeyPath(value)
  if (bad) throw unprocessable([{ type: 'forbidden_key', loc: ['body', ...bad], msg: `The key '${bad[bad.length - 1]}' is not allowed in a body`, input: null }])
  return value as Record<string, unknown>
}

/**
 * Global parser for every route that declares a body schema: JSON and text bodies go
 * through parseJsonBody. Form encodings, and routes without a body schema (they read the
 * body their own way, e.g. RFC 8058's one-click unsubscribe), are left to their parsers.
 */
export function jsonBody(maxBytes: number, routes: () => readonly RouteSchema[] = () => []) {
  let withBody: Set<string> | null = null
  return new Elysia({ name: 'json-body', seed: maxBytes }).onParse({ as: 'global' }, ({ request, contentType, route }) => {
    if (/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(contentType ?? '')) return
    withBody ??= new Set(routes().filter(r => r.hooks?.body).map(r => `${r.method} ${r.path}`))
    if (withBody.size > 0 && !withBody.has(`${request.method} ${route}`)) return
    return parseJsonBody(request, maxBytes)
  })
}

export interface RouteSchema {
  method: string
  path: string
  hooks: { body?: unknown }
}

/** true when a schema takes only scalars (string, number, boolean, null): an array or object there is refused at once */
function scalarOnly(schema: unknown): boolean {
  const kinds = kindsOf(schema)
  return kinds.length > 0 && kinds.every(k => k === 'string' || k === 'number' || k === 'integer' || k === 'boolean' || k === 'null')
}

/** true when a schema takes only an object (or null): the condition trees, `indicators`, `params` */
function objectOnly(schema: unknown): boolean {
  const kinds = kindsOf(schema)
  return kinds.includes('object') && kinds.every(k => k === 'object' || k === 'null')
}

/** the JSON kind of a value as a 422 names it: "got a string", "got an array" */
function jsonKindOf(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? `a ${typeof v}` : typeof v
}

/**
 * A value where `schema` takes only an object, and each value of a record of objects
 * (`indicators: {bb: 5}`): a scalar, an array, or null where null is not allowed, is a problem.
 */
function notObjects(schema: unknown, v: unknown, loc: (string | number)[], out: ValidationDetail[]): void {
  if (v === undefined) return
  if (v === null ? !kindsOf(schema).includes('null') : typeof v !== 'object' || Array.isArray(v)) {
    out.push({ type: 'dict_type', loc, msg: `Input should be ${ruleOf(schema)}; got ${jsonKindOf(v)}`, input: boundedInput(v) })
    return
  }
  if (v === null) return
  // a record of objects: t.Record(t.String(), t.Record(...)) is one pattern property
  const s = schema as { patternProperties?: Record<string, unknown>; anyOf?: unknown[] }
  const inner = Object.values((s.patternProperties ?? (s.anyOf ?? []).map(a => (a as typeof s).patternProperties).find(Boolean)) ?? {})[0]
  if (inner !== undefined && objectOnly(inner)) for (const [key, x] of Object.entries(v as Record<string, unknown>)) notObjects(inner, x, [...loc, key], out)
}

/**
 * Three checks of the top-level body fields as sent, before Elysia validates and fills
 * defaults:
 * - required fields: Elysia fills an absent t.Object({}) (the condition trees) with {},
 *   which turned a missing `entry` into an empty tree instead of a 422;
 * - an array or object where the schema takes only a scalar (a nested array in `strategy`,
 *   `name`, `symbol`) is refused here in O(1), before the validator describes it;
 * - a scalar, an array or (where not nullable) null where the schema takes only an object:
 *   Elysia would turn `"entry": "x"` into `{"0": "x"}` and `null`, `5`, `true` or `[]` into
 *   `{}`, and /backtest then answered "executed: false" about a tree nobody sent.
 */
export function requiredFields(routes: () => readonly RouteSchema[]) {
  let byRoute: Map<string, { required: string[]; scalars: string[]; objects: string[]; properties: Record<string, unknown> }> | null = null
  const schemaOf = (method: string, route: string) => {
    if (!byRoute) {
      byRoute = new Map()
      for (const r of routes()) {
        const b = r.hooks?.body as { required?: string[]; properties?: Record<string, unknown> } | undefined
        // a defaulted field is listed as required, but Elysia fills it: only the others count
        const required = (b?.required ?? []).filter(k => (b?.properties?.[k] as { default?: unknown } | undefined)?.default === undefined)
        const scalars = Object.keys(b?.properties ?? {}).filter(k => scalarOnly(b!.properties![k]))
        const objects = Object.keys(b?.properties ?? {}).filter(k => objectOnly(b!.properties![k]))
        if (b?.properties) byRoute.set(`${r.method} ${r.path}`, { required, scalars, objects, properties: b.properties })
      }
    }
    return byRoute.get(`${method} ${route}`)
  }
  return new Elysia({ name: 'required-fields' }).onTransform({ as: 'global' }, ({ request, route, body }) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return
    const schema = schemaOf(request.method, route)
    if (!schema) return
    const b = body as Record<string, unknown>
    const problems: ValidationDetail[] = schema.required
      .filter(k => !(k in b))
      .map(k => ({ type: 'missing', loc: ['body', k], msg: `Field required: ${ruleOf(schema.properties[k])}`, input: null }))
    for (const k of schema.scalars) {
      const v = b[k]
      if (v !== null && typeof v === 'object')
        problems.push({ type: `${kindsOf(schema.properties[k]).find(x => x !== 'null')}_type`, loc: ['body', k], msg: `Input should be ${ruleOf(schema.properties[k])}`, input: boundedInput(v) })
    }
    for (const k of schema.objects) notObjects(schema.properties[k], b[k], ['body', k], problems)
    if (problems.length) throw unprocessable(problems)
  })
}
