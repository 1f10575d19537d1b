/**
 * Services throw domain errors (src/runs/errors.ts); src/http/errors.ts alone turns them
 * into statuses and bodies. Each error's answer, as a value, and through the routes.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { domainErrorResponse } from '../src/http/errors'
import { InvalidRequest, Overloaded, OverLimit, UnknownResult, UnknownStrategy, UnknownSymbols } from '../src/runs/errors'
import { listStrategies } from '../src/strategies/registry'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 120, 100) })
afterAll(() => h.cleanup())

const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }
const post = (path: string, json: unknown) => h.req(path, { method: 'POST', json })

describe('the mapping of domain errors', () => {
  test('InvalidRequest is a 422 listing every problem as a value_error', () => {
    const e = new InvalidRequest([
      { loc: ['body', 'start_date'], msg: 'not a calendar date (YYYY-MM-DD)', input: '2025-02-30' },
      { loc: ['body', 'trades', 2, 'exit_time'], msg: 'before entry_time', input: 5 },
    ])
    expect(domainErrorResponse(e)).toEqual({
      status: 422,
      body: {
        detail: [
          { type: 'value_error', loc: ['body', 'start_date'], msg: 'not a calendar date (YYYY-MM-DD)', input: '2025-02-30' },
          { type: 'value_error', loc: ['body', 'trades', 2, 'exit_time'], msg: 'before entry_time', input: 5 },
        ],
      },
    })
  })

  test('the unknowns are 404s with their message as the detail', () => {
    expect(domainErrorResponse(new UnknownStrategy('x', ['a', 'b']))).toEqual({ status: 404, body: { detail: "Unknown strategy 'x'. Valid ids: a, b" } })
    expect(domainErrorResponse(new UnknownSymbols(['NOPEUSDT']))).toEqual({ status: 404, body: { detail: "Unknown symbol 'NOPEUSDT': see GET /coins" } })
    expect(domainErrorResponse(new UnknownResult('ab'))).toEqual({
      status: 404,
      body: { detail: "Unknown result hash 'ab': run POST /backtest or /simulate first; their responses carry result_hash" },
    })
  })

  test('OverLimit is a 400 with its figures beside the message; Overloaded a 503 with the retry hint', () => {
    expect(domainErrorResponse(new OverLimit('too many', { max_top_n: 5, requested: 9 }))).toEqual({ status: 400, body: { detail: { error: 'too many', max_top_n: 5, requested: 9 } } })
    expect(domainErrorResponse(new Overloaded(4))).toEqual({
      status: 503,
      body: { detail: 'The simulation queue is full; retry after 4 s', retry_after_seconds: 4 },
      retryAfterSec: 4,
    })
  })

  test('any other error is not a domain error', () => {
    expect(domainErrorResponse(new Error('boom'))).toBeNull()
    expect(domainErrorResponse(new RangeError('x'))).toBeNull()
  })
})

describe('through the routes', () => {
  test('/backtest with a symbol the store does not hold: the 404 of every route that takes a symbol, named as sent', async () => {
    const r = await post('/backtest', { entry: ENTRY, symbols: ['BTCUSDT', 'nopeusdt'] })
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ detail: "Unknown symbol 'nopeusdt': see GET /coins" })
  })

  test('an impossible date, or an end before the start: 422 naming the field, the rule and the input', async () => {
    const r = await post('/simulate', { strategy: 'bb-squeeze-short', start_date: '2025-02-30', end_date: '2025-01-01' })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({ detail: [{ type: 'value_error', loc: ['body', 'start_date'], msg: 'not a calendar date (YYYY-MM-DD)', input: '2025-02-30' }] })
    const swapped = await post('/simulate', { strategy: 'bb-squeeze-short', start_date: '2025-03-01', end_date: '2025-01-01' })
    expect(swapped.body).toEqual({ detail: [{ type: 'value_error', loc: ['body', 'end_date'], msg: 'end_date is before start_date', input: '2025-01-01' }] })
  })

  test('/simulate with an unknown strategy: 404 listing every registry id', async () => {
    const r = await post('/simulate', { strategy: 'nope' })
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ detail: `Unknown strategy 'nope'. Valid ids: ${listStrategies().map(s => s.id).join(', ')}` })
  })

  test('/simulate/coin with an unknown symbol: 404 naming it as the request spelled it', async () => {
    const r = await post('/simulate/coin', { symbol: 'nopeusdt' })
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ detail: "Unknown symbol 'nopeusdt': see GET /coins" })
  })

  test('/simulate/compare over more than 5 coins: 400 with the limit and the alternative', async () => {
    const r = await post('/simulate/compare', { top_n: 6 })
    expect(r.status).toBe(400)
    expect(r.body).toEqual({
      detail: {
        error: 'compare runs every strategy and is limited to 5 coins; run one strategy over more coins with POST /simulate',
        max_top_n: 5,
        requested: 6,
        alternative: '/simulate',
      },
    })
  })

  test('/simulate/validate with both a strategy and an entry tree: 422 on the body', async () => {
    const r = await post('/simulate/validate', { strategy: 'bb-squeeze-short', entry: ENTRY })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({ detail: [{ type: 'value_error', loc: ['body'], msg: 'give either strategy or entry, not both', input: null }] })
  })

  test('/export/csv of a hash no run produced: 404 saying how to get one', async () => {
    const r = await h.req(`/export/csv?hash=${'a'.repeat(64)}`)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ detail: `Unknown result hash '${'a'.repeat(64)}': run POST /backtest or /simulate first; their responses carry result_hash` })
  })
})
