/**
 * FastAPI-style error bodies for every validation failure: 422 with
 * {"detail":[{"type","loc","msg","input"}]}; JSON 404 for unknown routes; 413 for
 * oversized bodies; and the one mapping of the domain errors services throw
 * (src/runs/errors.ts) to statuses. Registered first in buildApp: Elysia hooks apply
 * only to routes registered after them.
 */
import { Elysia } from 'elysia'
import { InvalidRequest, Overloaded, OverLimit, UnknownResult, UnknownStrategy, UnknownSymbols } from '../runs/errors'

export interface ValidationDetail {
  type: string
  loc: (string | number)[]
  msg: string
  input: unknown
}

/** A domain error's status and body, or null for an error that is not one. */
export function domainErrorResponse(error: unknown): { status: number; body: unknown; retryAfterSec?: number } | null {
  if (error instanceof InvalidRequest) {
    const detail: ValidationDetail[] = error.problems.map(p => ({ type: 'value_error', loc: p.loc, msg: p.msg, input: p.input }))
    return { status: 422, body: { detail } }
  }
  if (error instanceof UnknownStrategy || error instanceof UnknownSymbols || error instanceof UnknownResult) return { status: 404, body: { detail: error.message } }
  if (error instanceof OverLimit) return { status: 400, body: { detail: { error: error.message, ...error.figures } } }
  if (error instanceof Overloaded)
    return {
      status: 503,
      body: { detail: `The simulation queue is full; retry after ${error.retryAfterSec} s`, retry_after_seconds: error.retryAfterSec },
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

function typeOf(e: any): string {
  const kind = e?.schema?.type ?? e?.schema?.anyOf?.[0]?.type
  if (e?.value === undefined) return 'missing'
  if (typeof kind === 'string') return `${kind}_type`
  return 'value_error'
}

/** A readable message for one TypeBox error (its own summary where that is readable). */
function messageOf(e: any): string {
  const sch = e?.schema ?? {}
  if (Array.isArray(sch.enum)) return `Input should be one of: ${sch.enum.join(', ')}`
  const kinds = (sch.anyOf as any[] | undefined)?.map(a => a.format ?? a.type)
  if (kinds && kinds.length && kinds.every(k => k === 'integer')) return 'Input should be a valid integer'
  if (kinds && kinds.length && kinds.every(k => k === 'number' || k === 'numeric')) return 'Input should be a valid number'
  return (e?.summary ?? e?.message ?? 'invalid value') as string
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

export const errorHandler = new Elysia({ name: 'error-handler' }).onError({ as: 'global' }, ({ code, error, set, request }) => {
  if (code === 'VALIDATION') {
    set.status = 422
    const seen = new Set<string>()
    const on = (error as any).type as string
    const all = ((error as any).all ?? []) as any[]
    const detail: ValidationDetail[] = all
      .map(e => ({
        type: typeOf(e),
        loc: on === 'property' ? propertyLoc(request, e.value) : locOf(on, e.path),
        msg: messageOf(e),
        input: e.value ?? null,
      }))
      .filter(d => {
        const k = JSON.stringify(d.loc)
        return seen.has(k) ? false : (seen.add(k), true)
      })
    if (detail.length === 0) detail.push({ type: 'value_error', loc: [on === 'params' ? 'path' : on], msg: String((error as any).message ?? 'invalid input'), input: null })
    return { detail }
  }
  if (code === 'PARSE') {
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
  if ((error as any)?.status === 413 || String((error as any)?.message ?? '').includes('too large')) {
    set.status = 413
    return { detail: 'Request body too large' }
  }
  if (code === 'UNKNOWN' || code === 'INTERNAL_SERVER_ERROR') {
    console.error('[error]', error)
    set.status = 500
    return { detail: 'Internal Server Error' }
  }
})
