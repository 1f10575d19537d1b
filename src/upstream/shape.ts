/**
 * Small validators for upstream bodies. Each returns the typed value or throws a
 * ShapeError naming the path that was wrong, which `parseBody` turns into an
 * UpstreamError of kind `malformed`. Numbers may arrive as JSON numbers or as numeric
 * strings (Binance and alternative.me send strings); both are accepted, anything
 * non-finite is not.
 */
import { UpstreamError } from './errors'

export class ShapeError extends Error {
  constructor(readonly path: string, expected: string, got: unknown) {
    super(`${path || '(body)'}: expected ${expected}, got ${describe(got)}`)
  }
}

function describe(x: unknown): string {
  if (x === null) return 'null'
  if (Array.isArray(x)) return 'array'
  if (typeof x === 'string') return x.length > 40 ? `string "${x.slice(0, 40)}…"` : `string "${x}"`
  return typeof x
}

export function record(x: unknown, path: string): Record<string, unknown> {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new ShapeError(path, 'object', x)
  return x as Record<string, unknown>
}

export function list(x: unknown, path: string): unknown[] {
  if (!Array.isArray(x)) throw new ShapeError(path, 'array', x)
  return x
}

export function num(x: unknown, path: string): number {
  const v = typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN
  if (!Number.isFinite(v)) throw new ShapeError(path, 'number', x)
  return v
}

/** null / undefined / "" -> null; otherwise a finite number */
export function optNum(x: unknown, path: string): number | null {
  if (x === null || x === undefined || x === '') return null
  return num(x, path)
}

export function str(x: unknown, path: string): string {
  if (typeof x !== 'string') throw new ShapeError(path, 'string', x)
  return x
}

export function optStr(x: unknown, path: string): string | null {
  if (x === null || x === undefined) return null
  return str(x, path)
}

/** Run a body parser; a ShapeError becomes a `malformed` UpstreamError of `source`. */
export function parseBody<T>(source: string, body: unknown, parse: (body: unknown) => T): T {
  try {
    return parse(body)
  } catch (e) {
    if (e instanceof ShapeError) throw new UpstreamError(source, 'malformed', e.message)
    throw e
  }
}
