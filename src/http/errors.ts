/**
 * FastAPI-style error bodies for every validation failure: 422 with
 * {"detail":[{"type","loc","msg","input"}]}; JSON 404 for unknown routes; 413 for
 * oversized bodies; and the one mapping of the domain errors services throw
 * (src/runs/errors.ts) to statuses. Registered first in buildApp: Elysia hooks apply
 * only to routes registered after them.
 */
import { Value } from '@sinclair/typebox/value'
import { Elysia } from 'elysia'
import { InvalidRequest, NotFound, Overloaded, OverLimit, TooManyResearchRuns, TooManyStreams, WorkersUnavailable } from '../runs/errors'
import type { ValidationErrorItem } from '../model/shared'

/** Where unexpected errors are reported (the request log replaces it with a JSON log line). */
export let internalErrorSink: (error: unknown, request: Request) => void = error => console.error('[error]', error)
export function setInternalErrorSink(sink: (error: unknown, request: Request) => void): void {
  internalErrorSink = sink
}

/** One entry of a 422 body: its schema is `ValidationErrorItem` in src/model/shared.ts. */
export type ValidationDetail = typeof ValidationErrorItem.static

/** A refusal by the HTTP layer itself (body parser, limits, shedding), with its status and headers. */
export class HttpError extends Error {
  constructor(readonly status: number, readonly body: unknown, readonly headers: Record<string, string> = {}) {
    super(typeof body === 'string' ? body : JSON.stringify(body))
  }
}

/** A 422 from the HTTP layer (body parser, field combinations). */
export function unprocessable(details: ValidationDetail[]): HttpError {
  return new HttpError(422, { detail: details })
}

/** A domain error's status and body, or null for an error that is not one. */
export function domainErrorResponse(error: unknown): { status: number; body: unknown; retryAfterSec?: number } | null {
  if (error instanceof InvalidRequest) {
    const detail: ValidationDetail[] = error.problems.map(p => ({ type: 'value_error', loc: p.loc, msg: p.msg, input: p.input }))
    return { status: 422, body: { detail } }
  }
  if (error instanceof NotFound) return { status: 404, body: { detail: error.message } }
  if (error instanceof OverLimit) return { status: 400, body: { detail: { error: error.message, ...error.figures } } }
  if (error instanceof TooManyStreams)
    return {
      status: error.scope === 'client' ? 429 : 503,
      body: { detail: `${error.message}; close one or retry after ${error.retryAfterSec} s`, limit: error.limit, retry_after_seconds: error.retryAfterSec },
      retryAfterSec: error.retryAfterSec,
    }
  if (error instanceof TooManyResearchRuns)
    return {
      status: error.scope === 'client' ? 429 : 503,
      body: { detail: `${error.message}; wait for one to stop (or DELETE it) and retry after ${error.retryAfterSec} s`, limit: error.limit, retry_after_seconds: error.retryAfterSec },
      retryAfterSec: error.retryAfterSec,
    }
  if (error instanceof Overloaded)
    return {
      status: 503,
      body: { detail: `The simulation queue is full; retry after ${error.retryAfterSec} s`, retry_after_seconds: error.retryAfterSec },
      retryAfterSec: error.retryAfterSec,
    }
  if (error instanceof WorkersUnavailable)
    return {
      status: 503,
      body: { detail: `No simulation worker can run this now: ${error.reason}; retry after ${error.retryAfterSec} s`, retry_after_seconds: error.retryAfterSec },
      retryAfterSec: error.retryAfterSec,
    }
  return null
}

const locOf = (on: string, path?: string): (string | number)[] => [
  on === 'params' ? 'path' : on === 'headers' ? 'header' : on,
  ...(path ?? '')
    .split('/')
    .filter(Boolean)
    .map(p => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map(p => (/^\d+$/.test(p) ? Number(p) : p)),
]

/** JSON-Schema kinds a value is checked against; Elysia's coercing variants count as their target. */
function kindOf(s: any): string | undefined {
  if (s?.type === 'string' && (s.format === 'integer' || s.format === 'numeric' || s.format === 'boolean')) return undefined
  return typeof s?.type === 'string' ? s.type : undefined
}

/** a value as a rule lists it: enum members bare (one of: 7d, 30d, 365d), as Elysia's own messages did */
const fmt = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v))

function range(s: any): string {
  const lo = s.minimum ?? s.exclusiveMinimum
  const hi = s.maximum ?? s.exclusiveMaximum
  const loWord = s.exclusiveMinimum !== undefined ? 'above' : 'from'
  if (lo !== undefined && hi !== undefined) return s.exclusiveMaximum !== undefined ? ` ${loWord} ${lo} and below ${hi}` : ` ${loWord} ${lo} to ${hi}`
  if (lo !== undefined) return s.exclusiveMinimum !== undefined ? ` above ${lo}` : ` of at least ${lo}`
  if (hi !== undefined) return s.exclusiveMaximum !== undefined ? ` below ${hi}` : ` of at most ${hi}`
  return ''
}

/**
 * The rule a schema states, in words ("an integer from 1 to 535 or null", "one of: 'long',
 * 'short'", "a string matching ^\d{4}-\d{2}-\d{2}$"): every 422 names the rule broken.
 */
export function ruleOf(s: any, depth = 0): string {
  if (!s || typeof s !== 'object' || depth > 4) return 'a valid value'
  if (Array.isArray(s.enum)) return `one of: ${s.enum.map(fmt).join(', ')}`
  if (s.const !== undefined) return fmt(s.const)
  const alts = (s.anyOf ?? s.oneOf) as any[] | undefined
  if (alts) {
    const consts = alts.filter(a => a.const !== undefined).map(a => a.const)
    const others = alts.filter(a => a.const === undefined && (kindOf(a) !== undefined || a.anyOf || a.oneOf || a.enum))
    const parts: string[] = []
    if (consts.length) parts.push(consts.length === 1 ? fmt(consts[0]) : `one of: ${consts.map(fmt).join(', ')}`)
    for (const a of others) parts.push(ruleOf(a, depth + 1))
    const uniq = [...new Set(parts)]
    // nullable: "an integer from 1 to 535, or null"
    const nul = uniq.indexOf('null')
    if (nul >= 0 && uniq.length > 1) return `${uniq.filter(p => p !== 'null').join(' or ')}, or null`
    return uniq.join(' or ') || 'a valid value'
  }
  switch (s.type) {
    case 'integer':
      return `an integer${range(s)}`
    case 'number':
      return `a finite number${range(s)}`
    case 'boolean':
      return 'true or false'
    case 'null':
      return 'null'
    case 'string': {
      const parts: string[] = []
      if (s.pattern) parts.push(`matching ${s.pattern}`)
      if (s.format) parts.push(`in ${s.format} format`)
      if (s.minLength !== undefined && s.maxLength !== undefined) parts.push(`of ${s.minLength} to ${s.maxLength} characters`)
      else if (s.maxLength !== undefined) parts.push(`of at most ${s.maxLength} characters`)
      else if (s.minLength !== undefined) parts.push(`of at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}`)
      return ['a string', ...parts].join(' ')
    }
    case 'array': {
      const n =
        s.minItems !== undefined && s.maxItems !== undefined
          ? ` of ${s.minItems} to ${s.maxItems} items`
          : s.maxItems !== undefined
            ? ` of at most ${s.maxItems} items`
            : s.minItems !== undefined
              ? ` of at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`
              : ''
      return `an array${n}${s.items ? ` of ${ruleOf(s.items, depth + 1).replace(/^(a|an) /, '').replace(/^one of/, 'values one of')}` : ''}`
    }
    case 'object':
      return 'an object'
  }
  return 'a valid value'
}

/** The JSON kinds a schema accepts, through nested unions. */
export function kindsOf(s: any, depth = 0): string[] {
  if (!s || depth > 4) return []
  const alts = (s.anyOf ?? s.oneOf) as any[] | undefined
  if (alts) return alts.flatMap(a => kindsOf(a, depth + 1))
  const k = kindOf(s)
  return k ? [k] : []
}

function typeOf(e: any): string {
  if (e?.value === undefined) return 'missing'
  const s = e?.schema ?? {}
  const alts = (s.anyOf ?? []) as any[]
  if (Array.isArray(s.enum) || (alts.length > 0 && alts.every(a => a.const !== undefined))) return 'enum'
  const kinds = kindsOf(s).filter(k => k !== 'null')
  const v = e.value
  const k = typeof v === 'number' ? kinds.find(x => x === 'integer' || x === 'number') : kinds.find(x => x === typeof v || (x === 'array' && Array.isArray(v)))
  if (k === 'integer') return Number.isInteger(v) ? 'range' : 'int_type'
  if (k === 'number') return 'range'
  if (k === 'string') return JSON.stringify(s).includes('"pattern"') ? 'pattern' : 'string_length'
  if (k === 'array') return 'array_length'
  return kinds.length ? `${kinds[0]}_type` : 'value_error'
}

/** "Input should be <rule>" (or "Field required: <rule>"), from the failing schema itself. */
function messageOf(e: any): string {
  const rule = ruleOf(e?.schema)
  if (e?.value === undefined) return `Field required: ${rule}`
  if (rule === 'a valid value') return String(e?.summary ?? e?.message ?? 'invalid value').slice(0, 200)
  return `Input should be ${rule}`
}

const INPUT_CHARS = 200

/**
 * An error's `input` echoes the request, but never grows with it: long strings are cut,
 * and arrays or objects whose JSON exceeds INPUT_CHARS are summarised.
 */
export function boundedInput(v: unknown): unknown {
  if (v === undefined) return null
  if (typeof v === 'string') return v.length > INPUT_CHARS ? `${v.slice(0, INPUT_CHARS)}… (${v.length} characters)` : v
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v)
  if (v === null || typeof v !== 'object') return v
  // large containers are summarised without serialising them
  if (Array.isArray(v) ? v.length > INPUT_CHARS / 2 : Object.keys(v).length > INPUT_CHARS / 4)
    return Array.isArray(v) ? `[array of ${v.length} items]` : `{object with ${Object.keys(v).length} keys}`
  let json: string | undefined
  try {
    json = JSON.stringify(v, (_k, x) => (typeof x === 'string' && x.length > INPUT_CHARS ? x.slice(0, INPUT_CHARS) : x))
  } catch {}
  if (json !== undefined && json.length <= INPUT_CHARS) return v
  return Array.isArray(v) ? `[array of ${v.length} items]` : `{object with ${Object.keys(v).length} keys}`
}

/**
 * Elysia validates a coerced query value on its own ("property") without its name; the
 * name is recovered from the request's query string, where the raw value stands.
 */
function propertyLoc(request: Request, input: unknown): (string | number)[] {
  const params = new URL(request.url).searchParams
  for (const [k, v] of params) if (v === String(input)) return ['query', k]
  return ['query']
}

/**
 * A union that failed as a whole (`[13]` against "array of 1..12, or null") is reported at
 * the failing element when the value is an array and the union has an array branch: the
 * entry then names `avoid_months[0]` and the element's rule, not the whole field's.
 */
function refined(e: any): { path: string; schema: any; value: unknown } {
  const alts = (e?.schema?.anyOf ?? []) as any[]
  const arr = alts.find(a => a?.type === 'array' && a.items)
  if (!Array.isArray(e?.value) || !arr) return e
  const v = e.value as unknown[]
  if ((arr.maxItems !== undefined && v.length > arr.maxItems) || (arr.minItems !== undefined && v.length < arr.minItems)) return { ...e, schema: arr }
  for (let i = 0; i < v.length; i++) {
    let ok = true
    try {
      ok = Value.Check(arr.items, v[i])
    } catch {}
    if (!ok) return { path: `${e.path ?? ''}/${i}`, schema: arr.items, value: v[i] }
  }
  return e
}

export const errorHandler = new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, set, request }) => {
  if (code === 'VALIDATION') {
    set.status = 422
    const seen = new Set<string>()
    const on = (error as any).type as string
    const all = ((error as any).all ?? []) as any[]
    const detail: ValidationDetail[] = all
      .map(refined)
      .map(e => ({
        type: typeOf(e),
        loc: on === 'property' ? propertyLoc(request, e.value) : locOf(on, e.path),
        msg: messageOf(e),
        input: boundedInput(e.value),
      }))
      .filter(d => {
        const k = JSON.stringify(d.loc)
        return seen.has(k) ? false : (seen.add(k), true)
      })
    if (detail.length === 0) detail.push({ type: 'value_error', loc: [on === 'params' ? 'path' : on], msg: 'Invalid input', input: null })
    return { detail }
  }
  if (code === 'PARSE') {
    // the body parser's own refusals (json-body.ts) arrive wrapped in Elysia's ParseError
    const cause = (error as any).cause
    if (cause instanceof HttpError) {
      set.status = cause.status
      Object.assign(set.headers, cause.headers)
      return cause.body
    }
    set.status = 422
    return { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }] }
  }
  if (code === 'NOT_FOUND') {
    set.status = 404
    return { detail: 'Not Found' }
  }
  const domain = domainErrorResponse(error)
  if (domain) {
    set.status = domain.status
    if (domain.retryAfterSec !== undefined) set.headers['retry-after'] = String(domain.retryAfterSec)
    return domain.body
  }
  if (error instanceof HttpError) {
    set.status = error.status
    Object.assign(set.headers, error.headers)
    return error.body
  }
  if ((error as any)?.status === 413 || String((error as any)?.message ?? '').includes('too large')) {
    set.status = 413
    return { detail: 'Request body too large' }
  }
  // anything else: a framework 4xx keeps its status with a short JSON detail; the rest is a
  // 500 whose body never carries the message or a stack (the log has them)
  const status = Number((error as any)?.status)
  if (code !== 'UNKNOWN' && code !== 'INTERNAL_SERVER_ERROR' && status >= 400 && status < 500) {
    set.status = status
    return { detail: String(code).toLowerCase().replace(/_/g, ' ') }
  }
  internalErrorSink(error, request)
  set.status = 500
  return { detail: 'Internal Server Error' }
})
