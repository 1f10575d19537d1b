/**
 * The big answers' own check and encoding (src/http/checked-json.ts): the same bytes as
 * Elysia's default path (its response schema's normalisation and check, then
 * `Response.json`), and a body that breaks its schema is still refused.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { Elysia, type TSchema } from 'elysia'
import { checkedJson, jsonByValue } from '../src/http/checked-json'
import { errorHandler } from '../src/http/errors'
import { BacktestResponse } from '../src/modules/backtest/model'
import { SimulateResponse } from '../src/modules/simulate/model'
import { Detail } from '../src/model/shared'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 150, 11) })
afterAll(() => h.cleanup())

describe('jsonByValue', () => {
  test('writes what JSON.stringify writes, for the cases its definition names', () => {
    const cases: Record<string, unknown>[] = [
      {},
      { a: 1 },
      // integer-like keys come first in both, in ascending order
      { b: 1, '10': 2, '1': 3, a: { '1000': 0.5, '100': 1e-7, x: 'é→' } },
      { skipped: undefined, f: () => 1, s: Symbol('s'), kept: null, arr: [undefined, () => 1, NaN, -0, Infinity] },
      { 'quo"te\n': '\u2028\u0000', date: new Date(Date.UTC(2026, 0, 2)), nested: [{ z: 1, a: [] }, []] },
      Object.assign(Object.create(null), { n: 1, m: [1, 2] }),
      { onlyUndefined: undefined },
    ]
    for (const c of cases) expect([c, jsonByValue(c)]).toEqual([c, JSON.stringify(c)])
  })
})

/** A run's answer as the handler built it: its nested objects' keys in another order, one key no schema knows. */
function asBuilt(body: any): any {
  const reversed = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).reverse())
  return {
    ...body,
    coin_results: body.coin_results.map(reversed),
    trades: body.trades.map((t: Record<string, unknown>, i: number) => (i === 0 ? { ...reversed(t), not_in_the_schema: 1 } : reversed(t))),
    extra_top_level_field: 'kept: the body schema admits more fields',
  }
}

/**
 * Two apps answering the same handler object under the same response schema: Elysia's
 * default path, and the route's hook. Both under the real app's validation settings (so a
 * change to them that the hook does not follow fails here), with the app's error handler,
 * headers set before the handler, and a global afterHandle hook, as every route of the real
 * app has.
 */
function twins(schema: TSchema, answer: () => unknown) {
  const { aot, normalize, sanitize, encodeSchema, allowUnsafeValidationDetails } = h.app.config
  const app = (hooked: boolean) =>
    new Elysia({ aot, normalize, sanitize, encodeSchema, allowUnsafeValidationDetails })
      .use(errorHandler)
      .onRequest(({ set }) => {
        set.headers['x-frame-options'] = 'DENY'
        set.headers['access-control-allow-origin'] = '*'
        set.headers['x-request-id'] = 'fixed'
      })
      .onAfterHandle({ as: 'global' }, () => undefined)
      .post('/run', answer, hooked ? { ...checkedJson({ 200: schema, 404: Detail }) } : { response: { 200: schema, 404: Detail } })
  return { elysia: app(false), hooked: app(true) }
}

async function answerOf(app: { handle(r: Request): Promise<Response> }) {
  const r = await app.handle(new Request('http://localhost/run', { method: 'POST' }))
  return { status: r.status, headers: [...r.headers], body: await r.text() }
}

describe('checkedJson on a run answer', () => {
  for (const [path, schema, json] of [
    ['/simulate', SimulateResponse, { strategy: 'bb-squeeze-short', top_n: 5 }],
    ['/backtest', BacktestResponse, { entry: { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }, indicators: { bb: {} }, top_n: 5 }],
  ] as const) {
    test(`${path}: the same status, headers and bytes as Elysia's normalisation, check and Response.json`, async () => {
      const r = await h.req(path, { method: 'POST', json })
      expect(r.status).toBe(200)
      expect(r.body.trades.length).toBeGreaterThan(0)
      expect(Object.keys(r.body.deflated_sharpe_info.sensitivity)).toEqual(['1', '10', '100', '1000'])
      const built = asBuilt(r.body)
      const { elysia, hooked } = twins(schema, () => built)
      const [a, b] = [await answerOf(elysia), await answerOf(hooked)]
      expect(b).toEqual(a)
      expect(a.status).toBe(200)
      // the normalisation ran: nested keys in the schema's order, the unknown one gone, the top-level extra kept
      const sent = JSON.parse(b.body)
      expect(b.body).not.toContain('not_in_the_schema')
      expect(sent.extra_top_level_field).toBe(built.extra_top_level_field)
      expect(Object.keys(sent.coin_results[0])).toEqual(Object.keys(r.body.coin_results[0]))
      expect(Object.keys(sent.trades[0])).toEqual(Object.keys(r.body.trades[0]))
    })

    test(`${path}: a body that breaks its schema is refused as Elysia refuses it`, async () => {
      const r = await h.req(path, { method: 'POST', json })
      const breaks: [string, (b: any) => void][] = [
        ['a trade time that is no date-time', b => (b.trades[0].entry_time = 'yesterday')],
        ['a required field missing', b => delete b.total_trades],
        ['a curve day that is no calendar day', b => (b.equity_curve[0].t = '2025-02-30')],
        ['a sensitivity that is no number', b => (b.deflated_sharpe_info.sensitivity['10'] = 'high')],
      ]
      for (const [what, breakIt] of breaks) {
        const broken = asBuilt(r.body)
        breakIt(broken)
        const { elysia, hooked } = twins(schema, () => broken)
        const [a, b] = [await answerOf(elysia), await answerOf(hooked)]
        expect([what, b.status]).toEqual([what, 422])
        expect([what, b]).toEqual([what, a])
      }
    })
  }

  test('a 404 the handler throws and a non-object answer take Elysia\'s own way', async () => {
    const { NotFound } = await import('../src/runs/errors')
    for (const answer of [
      () => {
        throw new NotFound('no such thing')
      },
      () => new Response('as it is', { status: 203 }),
    ]) {
      const { elysia, hooked } = twins(SimulateResponse, answer)
      expect(await answerOf(hooked)).toEqual(await answerOf(elysia))
    }
  })

  test('the real app checks and encodes /simulate and /backtest with it', () => {
    const hooked = h.app.routes
      .filter(r => r.method === 'POST' && (r.path === '/simulate' || r.path === '/backtest'))
      .filter(r => [(r.hooks as any).afterHandle ?? []].flat().some((x: any) => (x?.fn ?? x)?.name === 'checkedJsonAnswer'))
      .map(r => r.path)
      .sort()
    expect(hooked).toEqual(['/backtest', '/simulate'])
  })
})
