/**
 * The big answers (/simulate and /backtest: a run's result body, about 700 KB) checked
 * against their response schema and encoded here, on the route, instead of by Elysia's
 * default path: the same normalisation, the same check and the same bytes, in about a third
 * of the main thread's CPU (docs/benchmarks.md, "Speed near the floor (issue 30)").
 *
 * Why not Elysia's own path: after the schema's normalisation and check it encodes the
 * object with `Response.json`, one `JSON.stringify` of the whole document. JavaScriptCore's
 * fast JSON encoder gives up on the whole document at the first object with integer-like
 * keys (a run's `deflated_sharpe_info.sensitivity`, {"1": …, "10": …}: the contract fixes
 * that shape) or the first string outside Latin-1 (`grade_details`' arrows), and the slow
 * general encoder then writes all 700 KB: about 6 ms against about 2 ms. Encoding the
 * top-level values one by one keeps the slow encoder to the small values that need it.
 *
 * Why not an Elysia `mapResponse` hook: on a route with an `afterHandle` hook in its chain
 * (every route here) it is handed the handler's object before the response schema's
 * normalisation (exact-mirror, which among others writes `coin_results` items in the
 * schema's key order), so its bytes differed. This `afterHandle` hook normalises and
 * checks itself, with the validator Elysia builds for the route's response schema, and
 * answers a `Response`; Elysia leaves a `Response` unchecked and only adds the headers
 * already set, which the hook has copied in their order.
 */
import type { TSchema } from '@sinclair/typebox'
import { getResponseSchemaValidator, ValidationError } from 'elysia'

/** Bun's `Response.json` content type, which the default path answers with. */
const JSON_TYPE = 'application/json;charset=utf-8'

type Headers_ = Record<string, string | number>

/**
 * `JSON.stringify(value)` of a plain object, written value by value (see above). The same
 * text by the definition of JSON.stringify: its keys are the object's own enumerable string
 * keys in `Object.keys` order, each value written as `JSON.stringify` writes it alone, and
 * a key whose value it cannot write (undefined, a function, a symbol) left out. (A value's
 * `toJSON` is called with the key "" instead of its key; no body holds one that reads it.)
 */
export function jsonByValue(value: Record<string, unknown>): string {
  let text = '{'
  for (const key of Object.keys(value)) {
    const written = JSON.stringify(value[key])
    if (written === undefined) continue
    if (text.length > 1) text += ','
    text += JSON.stringify(key) + ':' + written
  }
  return text + '}'
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)

/**
 * A route's `response` map with the hook that checks and encodes its 200 answer: spread
 * into the route's options (`...checkedJson({ 200: Body, 404: Detail })`), so the schema
 * the answer is checked against is the one /openapi.json publishes.
 */
export function checkedJson<R extends { 200: TSchema } & Record<number, TSchema>>(response: R) {
  // Built as Elysia builds a route's response validators (index.mjs `createResponse`) under
  // this app's configuration: `normalize` on (its default: exact-mirror), ahead-of-time
  // compiled unless ELYSIA_AOT=false, no models, modules or sanitizers (tests/checked-json.test.ts
  // holds it to the app's settings). The first answer compiles it, as Elysia does; only the
  // 200 schema, which the hook checks (building a validator may mark the other schemas of
  // the map `additionalProperties: false`).
  let validator: { Clean?: (v: unknown) => unknown; Check: (v: unknown) => boolean } | undefined
  const compiled = () =>
    (validator ??= getResponseSchemaValidator({ 200: response[200] }, { modules: undefined as never, models: {}, normalize: true, dynamic: process.env.ELYSIA_AOT === 'false' })![200] as NonNullable<typeof validator>)
  const afterHandle = function checkedJsonAnswer({ response: answer, set }: { response: unknown; set: { status?: number | string; headers: Headers_; cookie?: unknown } }): Response | undefined {
    // anything but a plain 200 object (a Response, a status(...) answer, a stream) goes Elysia's way
    if ((set.status !== undefined && set.status !== 200) || !isPlainObject(answer)) return undefined
    const v = compiled()
    // Elysia's generated code for a checked response: `try{r=Clean(r)}catch{}`, then Check
    let body: unknown = answer
    try {
      body = v.Clean ? v.Clean(answer) : answer
    } catch {}
    // the same error Elysia throws, so src/http/errors.ts answers it the same way
    if (!v.Check(body)) throw new ValidationError('response', v as never, body)
    // the headers already set, in their order, then the content type: as `Response.json(body, set)` has them
    const headers = new Headers(set.headers as Record<string, string>)
    if (!headers.has('content-type')) headers.set('content-type', JSON_TYPE)
    const response = new Response(jsonByValue(body as Record<string, unknown>), { status: 200, headers })
    // the headers set are this Response's now: with none left in `set` to merge (and no
    // cookie), Elysia serves it as it is, where it would otherwise answer a copy of it (a new
    // Response over a stream of this one's body, its headers merged again: about 0.8 ms of
    // this thread for a 700 KB answer); a header a later hook sets is merged as before
    if (set.cookie === undefined) set.headers = {}
    return response
  }
  // Elysia types a hook's answer as the route's schema type; a Response is served as it is
  return { response, afterHandle: afterHandle as (context: Parameters<typeof afterHandle>[0]) => void }
}
