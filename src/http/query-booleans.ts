/**
 * Boolean query parameters read the way FastAPI (pydantic) reads them: `true`/`false`,
 * `1`/`0`, `yes`/`no`, `on`/`off`, `t`/`f`, `y`/`n`, in any case (docs/api.md "Query
 * booleans"). Elysia's own coercion takes only `true` and `false`; this hook, before
 * validation, rewrites each boolean parameter of the route to one of those two, or refuses
 * it with a 422 naming the parameter and quoting the value as sent. The declared schemas
 * stay `t.Boolean`, so /openapi.json says `boolean`.
 */
import { Elysia } from 'elysia'
import { unprocessable } from './errors'

/** pydantic's `str_as_bool`: the words it reads, compared case-insensitively */
const TRUE_WORDS = new Set(['1', 'true', 't', 'yes', 'y', 'on'])
const FALSE_WORDS = new Set(['0', 'false', 'f', 'no', 'n', 'off'])

export const QUERY_BOOLEAN_RULE = 'a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n, in any case'

/** A query value as a boolean, or null when it is not one of the words. */
export function parseQueryBoolean(raw: string): boolean | null {
  const w = raw.toLowerCase()
  return TRUE_WORDS.has(w) ? true : FALSE_WORDS.has(w) ? false : null
}

interface RouteQuery {
  method: string
  path: string
  /** the route's hooks; `query` is its query schema when it has one */
  hooks: object
}

/** the names of a query schema's boolean properties */
function booleanParams(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {}
  return Object.keys(props).filter(k => props[k]?.type === 'boolean')
}

/** `routes`: the finished app's route table, read on the first request. */
export function queryBooleans(routes: () => readonly RouteQuery[]) {
  let byRoute: Map<string, string[]> | null = null
  return new Elysia({ name: 'query-booleans' }).onTransform({ as: 'global' }, ({ request, route, query }) => {
    if (!byRoute) {
      byRoute = new Map()
      for (const r of routes()) {
        const names = booleanParams((r.hooks as { query?: unknown } | undefined)?.query)
        if (names.length) byRoute.set(`${r.method} ${r.path}`, names)
      }
    }
    const names = byRoute.get(`${request.method} ${route}`)
    if (!names) return
    const q = query as Record<string, unknown>
    const problems = []
    for (const name of names) {
      const raw = q[name]
      if (typeof raw !== 'string') continue
      const value = parseQueryBoolean(raw)
      if (value === null) problems.push({ type: 'bool_parsing', loc: ['query', name], msg: `Input should be ${QUERY_BOOLEAN_RULE}`, input: raw })
      else q[name] = String(value)
    }
    if (problems.length) throw unprocessable(problems)
  })
}
