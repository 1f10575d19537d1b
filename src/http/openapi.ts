/** GET /openapi.json: OpenAPI 3.1.0 of the public routes, no documentation UI. */
import { openapi } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { FormatRegistry } from '@sinclair/typebox'
import { VERSION } from '../version'

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

/** RFC 3339 full-date (JSON Schema's `date` format): YYYY-MM-DD naming a real calendar day. */
export function isFullDate(value: string): boolean {
  const m = FULL_DATE.exec(value)
  if (!m) return false
  const y = +m[1], mo = +m[2], d = +m[3]
  if (mo < 1 || mo > 12 || d < 1 || d > DAYS_IN_MONTH[mo - 1]) return false
  return mo !== 2 || d < 29 || (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))
}

// Importing @elysiajs/openapi replaces TypeBox's global `date` format with a check that
// builds a Zod schema on every call (about 30 µs); a run's response carries three daily
// curves of up to 731 points each, so response validation alone cost ~50–100 ms.
FormatRegistry.Set('date', value => isFullDate(value))

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
  return new Elysia({ name: 'openapi-document' })
    .onAfterHandle({ as: 'global' }, ({ route, response }) => {
      if (route === '/openapi.json') return optionalDefaults(jsonRequestBodies(response, routes())) as Record<string, unknown>
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
