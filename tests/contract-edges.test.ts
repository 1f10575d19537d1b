/**
 * The edges of the contract a client meets first (issue #24 §1, §3): a condition tree that
 * is not an object, a short on spot, booleans in a query string, a symbol the store does
 * not hold, and the first weekly bar of a coin listed mid-week.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { parseQueryBoolean } from '../src/http/query-booleans'
import { resample } from '../src/market/resample'
import { makeHarness, walkCandles } from './helpers/harness'

const HOUR = 3_600_000
const WED = Date.UTC(2025, 0, 1) // a Wednesday
const MON = Date.UTC(2025, 0, 6) // the Monday after it
const DAYS = 120

const h = makeHarness({
  fill: store => {
    const coins: [string, number, number][] = [
      ['BTCUSDT', WED, 1],
      ['ETHUSDT', MON, 2],
      ['USDCUSDT', WED, 3],
    ]
    for (const [s, start, seed] of coins) {
      const cols = walkCandles(24 * DAYS, start, seed, s === 'USDCUSDT' ? 1 : 100)
      store.appendCandles(s, cols, cols[0].length)
    }
    store.upsertMeta(
      coins.map(([s, start], k) => ({ symbol: s, name: s, rank: k + 1, stablecoin: s === 'USDCUSDT', assetClass: 'crypto', listingMs: start })),
      'binance-csv',
    )
  },
})
afterAll(() => h.cleanup())

const ENTRY = { type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'bb_upper' } }] }
const post = (path: string, json: unknown) => h.req(path, { method: 'POST', json })

describe('POST /backtest: a condition tree must be an object', () => {
  const notObjects: [unknown, string][] = [
    [null, 'null'],
    [5, 'a number'],
    ['close > 1', 'a string'],
    [[ENTRY], 'an array'],
    [true, 'a boolean'],
  ]

  for (const [value, kind] of notObjects)
    test(`entry ${JSON.stringify(value)} is a 422 naming entry and the type sent (${kind})`, async () => {
      const r = await post('/backtest', { entry: value })
      expect(r.status).toBe(422)
      expect(r.body).toEqual({ detail: [{ type: 'dict_type', loc: ['body', 'entry'], msg: `Input should be an object; got ${kind}`, input: value }] })
    })

  test('exit_conditions takes an object or null: anything else is a 422 naming it', async () => {
    for (const [value, kind] of notObjects.filter(([v]) => v !== null)) {
      const r = await post('/backtest', { entry: ENTRY, exit_conditions: value })
      expect(r.status).toBe(422)
      expect(r.body.detail).toEqual([{ type: 'dict_type', loc: ['body', 'exit_conditions'], msg: `Input should be an object, or null; got ${kind}`, input: value }])
    }
    expect((await post('/backtest', { entry: ENTRY, exit_conditions: null })).status).toBe(200)
  })

  test('indicators and each of its entries are objects: a number there is a 422, not an indicator with defaults', async () => {
    const whole = await post('/backtest', { entry: ENTRY, indicators: 5 })
    expect(whole.body.detail).toEqual([{ type: 'dict_type', loc: ['body', 'indicators'], msg: 'Input should be an object; got a number', input: 5 }])
    const one = await post('/backtest', { entry: ENTRY, indicators: { bb: 5 } })
    expect(one.status).toBe(422)
    expect(one.body.detail).toEqual([{ type: 'dict_type', loc: ['body', 'indicators', 'bb'], msg: 'Input should be an object; got a number', input: 5 }])
  })

  test('the research routes take the same trees under the same rule', async () => {
    const r = await post('/simulate/validate', { entry: 'x' })
    expect(r.status).toBe(422)
    expect(r.body.detail[0]).toMatchObject({ loc: ['body', 'entry'], msg: 'Input should be an object; got a string', input: 'x' })
  })

  test('an object tree that fails validation stays a 200 with executed false, its messages quoting the input as sent', async () => {
    const entry = { type: 'AND', conditions: [null, 5, 'x', [], { field: 'close', op: '>>', value: 'y' }] }
    const r = await post('/backtest', { entry })
    expect(r.status).toBe(200)
    expect(r.body.executed).toBe(false)
    expect(r.body.is_valid).toBe(false)
    const errors: string[] = r.body.validation_errors
    expect(errors.find(e => e.startsWith('entry.conditions[0]:'))).toEndWith('got null')
    expect(errors.find(e => e.startsWith('entry.conditions[1]:'))).toEndWith('got 5')
    expect(errors.find(e => e.startsWith('entry.conditions[2]:'))).toEndWith('got "x"')
    expect(errors.find(e => e.startsWith('entry.conditions[3]:'))).toEndWith('got []')
    expect(errors.find(e => e.startsWith('entry.conditions[4].op:'))).toContain('">>"')
    expect(errors.find(e => e.startsWith('entry.conditions[4].value:'))).toEndWith('got "y"')
  })
})

describe('spot has no short side', () => {
  test('/simulate/coin with market_type spot and direction short is a 422 naming both fields', async () => {
    const r = await post('/simulate/coin', { symbol: 'BTCUSDT', market_type: 'spot', direction: 'short' })
    expect(r.status).toBe(422)
    expect(r.body.detail.map((d: any) => [d.loc, d.input])).toEqual([
      [['body', 'market_type'], 'spot'],
      [['body', 'direction'], 'short'],
    ])
    for (const d of r.body.detail) expect(d.msg).toContain("market_type 'futures'")
  })

  test('a short that comes from the default direction or from a short strategy is refused the same way', async () => {
    const byDefault = await post('/simulate/coin', { symbol: 'BTCUSDT', market_type: 'spot' })
    expect(byDefault.status).toBe(422)
    expect(byDefault.body.detail[1]).toMatchObject({ loc: ['body', 'direction'], input: null })
    expect(byDefault.body.detail[1].msg).toContain("defaults to 'short'")
    const byStrategy = await post('/simulate/coin', { symbol: 'BTCUSDT', market_type: 'spot', strategy: 'bb-squeeze-short' })
    expect(byStrategy.body.detail[1]).toMatchObject({ loc: ['body', 'strategy'], input: 'bb-squeeze-short' })
    const simulate = await post('/simulate', { strategy: 'bb-squeeze-short', market_type: 'spot', symbols: ['BTCUSDT'] })
    expect(simulate.status).toBe(422)
    expect(simulate.body.detail.map((d: any) => d.loc)).toEqual([
      ['body', 'market_type'],
      ['body', 'strategy'],
    ])
  })

  test('a long on spot and a short on futures run', async () => {
    const long = await post('/simulate/coin', { symbol: 'BTCUSDT', market_type: 'spot', direction: 'long' })
    expect(long.status).toBe(200)
    expect(long.body).toMatchObject({ market_type: 'spot', direction: 'long' })
    expect((await post('/simulate/coin', { symbol: 'BTCUSDT', direction: 'short' })).status).toBe(200)
  })
})

describe('query booleans are read as FastAPI reads them', () => {
  test('true/false, 1/0, yes/no, on/off, t/f, y/n in any case; nothing else', () => {
    for (const w of ['true', 'TRUE', 'True', '1', 'yes', 'Yes', 'on', 'ON', 't', 'T', 'y', 'Y']) expect(parseQueryBoolean(w)).toBe(true)
    for (const w of ['false', 'FALSE', 'False', '0', 'no', 'NO', 'off', 'Off', 'f', 'F', 'n', 'N']) expect(parseQueryBoolean(w)).toBe(false)
    for (const w of ['', ' true', '2', '-1', '10', 'maybe', 'truee', 'nope', 'null', 'tru']) expect(parseQueryBoolean(w)).toBeNull()
  })

  // every boolean query parameter of every route, read from the app's own route table
  const params = h.app.routes.flatMap(r => {
    const props = ((r.hooks as { query?: { properties?: Record<string, { type?: string }> } }).query?.properties ?? {}) as Record<string, { type?: string }>
    return Object.keys(props)
      .filter(k => props[k].type === 'boolean')
      .map(k => ({ path: r.path, param: k }))
  })

  test('the table holds the boolean parameters of /coins and /rankings/daily', () => {
    expect(params.map(p => `${p.path}?${p.param}`)).toEqual(
      expect.arrayContaining(['/coins?include_stablecoins', '/coins?include_non_crypto', '/rankings/daily?strict_date', '/rankings/daily?selection']),
    )
  })

  for (const { path, param } of params)
    test(`${path}?${param}: every spelling is accepted, anything else is a 422 naming ${param} and quoting the value`, async () => {
      for (const w of ['1', '0', 'TRUE', 'False', 'yes', 'No', 'on', 'OFF', 't', 'F', 'Y', 'n']) expect({ w, status: (await h.req(`${path}?${param}=${w}`)).status }).not.toEqual({ w, status: 422 })
      for (const w of ['maybe', '2', '']) {
        const r = await h.req(`${path}?${param}=${w}`)
        expect(r.status).toBe(422)
        expect(r.body.detail).toEqual([
          { type: 'bool_parsing', loc: ['query', param], msg: 'Input should be a boolean: true/false, 1/0, yes/no, on/off, t/f or y/n, in any case', input: w },
        ])
      }
    })

  test('the words mean what they say: include_stablecoins=YES adds the stablecoin, =0 leaves it out', async () => {
    const symbols = async (q: string) => (await h.req(`/coins?include_stablecoins=${q}`)).body.map((c: any) => c.symbol)
    expect(await symbols('YES')).toContain('USDCUSDT')
    expect(await symbols('1')).toContain('USDCUSDT')
    expect(await symbols('0')).not.toContain('USDCUSDT')
    expect(await symbols('Off')).not.toContain('USDCUSDT')
  })
})

describe('an unknown symbol is a 404 with the same detail on every route that takes one', () => {
  const nope = (s: string) => ({ detail: `Unknown symbol '${s}': see GET /coins` })
  const GRID = { lower_price: 80, upper_price: 120, grid_count: 10, direction: 'long' }
  const SL_SPACE = [{ path: 'sl_pct', values: [2, 4] }]
  /** every route that takes a symbol, with a request naming one the store does not hold */
  const cases: { route: string; field: string; ask: () => ReturnType<typeof h.req>; named: string }[] = [
    { route: 'GET /ohlcv/:symbol', field: 'symbol', ask: () => h.req('/ohlcv/nopeusdt'), named: 'nopeusdt' },
    { route: 'POST /simulate', field: 'symbols', ask: () => post('/simulate', { strategy: 'bb-squeeze-short', symbols: ['BTCUSDT', 'nopeusdt'] }), named: 'nopeusdt' },
    { route: 'POST /simulate/coin', field: 'symbol', ask: () => post('/simulate/coin', { symbol: 'nopeusdt' }), named: 'nopeusdt' },
    { route: 'POST /backtest', field: 'symbols', ask: () => post('/backtest', { entry: ENTRY, symbols: ['nopeusdt', 'BTCUSDT'] }), named: 'nopeusdt' },
    { route: 'POST /backtest', field: 'symbol', ask: () => post('/backtest', { entry: ENTRY, symbol: 'NOPEUSDT' }), named: 'NOPEUSDT' },
    { route: 'POST /simulate/dca', field: 'symbol', ask: () => post('/simulate/dca', { symbol: 'NOPEUSDT' }), named: 'NOPEUSDT' },
    { route: 'POST /simulate/grid', field: 'symbol', ask: () => post('/simulate/grid', { symbol: 'NOPEUSDT', params: GRID }), named: 'NOPEUSDT' },
    { route: 'POST /research/sweeps', field: 'symbols', ask: () => post('/research/sweeps', { strategy: 'bb-squeeze-short', symbols: ['nopeusdt'], space: SL_SPACE }), named: 'nopeusdt' },
    { route: 'POST /research/sweeps', field: 'symbol', ask: () => post('/research/sweeps', { entry: ENTRY, symbol: 'NOPEUSDT', space: SL_SPACE }), named: 'NOPEUSDT' },
    { route: 'POST /research/walk-forward', field: 'symbols', ask: () => post('/research/walk-forward', { strategy: 'bb-squeeze-short', symbols: ['BTCUSDT', 'nopeusdt'], space: SL_SPACE, in_sample_days: 30, out_of_sample_days: 10, folds: 2 }), named: 'nopeusdt' },
    { route: 'POST /research/walk-forward', field: 'symbol', ask: () => post('/research/walk-forward', { entry: ENTRY, symbol: 'NOPEUSDT', space: SL_SPACE, in_sample_days: 30, out_of_sample_days: 10, folds: 2 }), named: 'NOPEUSDT' },
    { route: 'POST /generate-bot', field: 'coins', ask: () => post('/generate-bot', { strategy: 'bb-squeeze-short', coins: ['BTCUSDT', 'NOPEUSDT'] }), named: 'NOPEUSDT' },
  ]

  for (const c of cases)
    test(`${c.route} (${c.field})`, async () => {
      const r = await c.ask()
      expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: nope(c.named) })
    })

  test('the cases cover every route whose path or body takes a symbol', () => {
    const takesSymbol = h.app.routes.flatMap(r => {
      const hooks = r.hooks as { body?: { properties?: Record<string, unknown> }; params?: { properties?: Record<string, unknown> } }
      const fields = [...Object.keys(hooks.params?.properties ?? {}), ...Object.keys(hooks.body?.properties ?? {})].filter(k => k === 'symbol' || k === 'symbols' || k === 'coins')
      return fields.map(f => `${r.method} ${r.path} (${f})`)
    })
    expect(takesSymbol.length).toBeGreaterThanOrEqual(8)
    expect(takesSymbol.sort()).toEqual(cases.map(c => `${c.route} (${c.field})`).sort())
  })

  test('several unknown symbols are named together', async () => {
    const r = await post('/simulate', { strategy: 'bb-squeeze-short', symbols: ['AUSDT', 'BTCUSDT', 'BUSDT'] })
    expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { detail: "Unknown symbols 'AUSDT', 'BUSDT': see GET /coins" } })
  })
})

describe('weekly bars never start before the data', () => {
  test('a coin listed on a Wednesday: its first 1W bar is the first whole week, from the Monday after', async () => {
    const r = await h.req('/ohlcv/BTCUSDT?timeframe=1W&limit=5000')
    const first = r.body.data[0]
    expect(first.t * 1000).toBe(MON)
    const hours = (await h.req('/ohlcv/BTCUSDT?limit=5000')).body.data
    expect(hours[0].t * 1000).toBe(WED)
    const week = hours.filter((x: any) => x.t * 1000 >= MON && x.t * 1000 < MON + 7 * 24 * HOUR)
    expect(week.length).toBe(168)
    expect(first.o).toBe(week[0].o)
    expect(first.c).toBe(week[167].c)
    expect(first.v).toBeCloseTo(week.reduce((s: number, x: any) => s + x.v, 0), 6)
    for (const b of r.body.data) expect(b.t * 1000).toBeGreaterThanOrEqual(hours[0].t * 1000)
  })

  test('a coin listed on a Monday at 00:00 keeps its first week', async () => {
    const r = await h.req('/ohlcv/ETHUSDT?timeframe=1W&limit=5000')
    expect(r.body.data[0].t * 1000).toBe(MON)
    expect(r.body.total_bars).toBe(Math.floor(DAYS / 7))
  })

  test('the runs read the same weekly bars (one resampling): none starts before the first candle', () => {
    const cols = walkCandles(24 * 20, WED, 9)
    const t = Float64Array.from(cols[0])
    const [o, hh, l, c, v] = cols.slice(1).map(x => Float64Array.from(x))
    const week = resample({ t, o, h: hh, l, c, v, n: t.length, stepMs: HOUR }, '1W')
    expect(Array.from(week.t)).toEqual([MON, MON + 7 * 24 * HOUR])
    // a week whose first hour is stored is whole, and is kept
    const fromMonday = resample({ t: t.subarray(5 * 24), o: o.subarray(5 * 24), h: hh.subarray(5 * 24), l: l.subarray(5 * 24), c: c.subarray(5 * 24), v: v.subarray(5 * 24), n: t.length - 5 * 24, stepMs: HOUR }, '1W')
    expect(fromMonday.t[0]).toBe(MON)
    expect(fromMonday.n).toBe(2)
  })
})
