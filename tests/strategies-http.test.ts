/** GET /strategies and GET /indicators through the Elysia module, as a client sees them. */
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { INDICATORS } from '../src/indicators/registry'
import { strategiesModule } from '../src/modules/strategies'
import { validateStrategy } from '../src/strategies/validate'
import { listStrategies } from '../src/strategies/registry'
import { compileStrategy } from '../src/strategies/compile'
import type { Bars } from '../src/market/types'
import { walkCandles } from './helpers/fixtures'

const app = new Elysia().use(strategiesModule())
const get = async (path: string) => {
  const res = await app.handle(new Request(`http://localhost${path}`))
  return { status: res.status, body: (await res.json()) as any }
}

describe('GET /strategies', () => {
  test('lists every registry strategy with the contract fields and its default settings', async () => {
    const { status, body } = await get('/strategies')
    expect(status).toBe(200)
    expect(body.map((s: any) => s.id)).toEqual(listStrategies().map(s => s.id))
    for (const item of body) {
      const def = listStrategies().find(s => s.id === item.id)!
      expect(typeof item.name).toBe('string')
      expect(item.description).toBe(def.description)
      expect(item.default_params).toEqual({ sl_pct: def.sl_pct, tp_pct: def.tp_pct, max_bars: def.max_bars, direction: def.direction, status: def.status, avoid_hours: def.avoid_hours })
      expect(['verified', 'testing', 'research']).toContain(item.default_params.status)
    }
  })
  test('each strategy carries its tree in the /backtest request form, so a client can rerun it', async () => {
    const { body } = await get('/strategies')
    for (const item of body) {
      const def = listStrategies().find(s => s.id === item.id)!
      // the contract's top level; a registry tree that is AND already is served as it is
      const asServed = (t: unknown) => ((t as { type?: string }).type === 'AND' ? t : { type: 'AND', conditions: [t] })
      expect(item.entry).toEqual(JSON.parse(JSON.stringify(asServed(def.entry))))
      expect(item.exit_conditions).toEqual(def.exit_conditions ? JSON.parse(JSON.stringify(asServed(def.exit_conditions))) : null)
      expect(validateStrategy(item)).toEqual([])
    }
  })

  test("every served tree has the contract's top level {type: 'AND', conditions: [...]}, the donchian leaves too", async () => {
    const { body } = await get('/strategies')
    for (const item of body) {
      expect([item.id, item.entry.type, Array.isArray(item.entry.conditions)]).toEqual([item.id, 'AND', true])
      if (item.exit_conditions) expect([item.id, item.exit_conditions.type]).toEqual([item.id, 'AND'])
    }
    const donchian = body.find((s: any) => s.id === 'donchian-breakout-long')
    expect(donchian.entry).toEqual({ type: 'AND', conditions: [{ field: 'close', op: '>', value: { field: 'dc_upper_prev' } }] })
  })

  test('a served tree signals on exactly the bars its registry definition does', async () => {
    const [t, o, h, l, c, v] = walkCandles(24 * 60, Date.UTC(2024, 0, 1), 5).map(col => Float64Array.from(col))
    const bars: Bars = { t, o, h, l, c, v, n: t.length, stepMs: 3_600_000 }
    const { body } = await get('/strategies')
    for (const item of body) {
      const def = listStrategies().find(s => s.id === item.id)!
      const served = compileStrategy({ indicators: item.indicators, entry: item.entry, exit_conditions: item.exit_conditions }, bars)
      const own = compileStrategy({ indicators: def.indicators, entry: def.entry, exit_conditions: def.exit_conditions }, bars)
      expect([item.id, Array.from(served.entry)]).toEqual([item.id, Array.from(own.entry)])
      expect([item.id, served.exit && Array.from(served.exit)]).toEqual([item.id, own.exit && Array.from(own.exit)])
    }
  })
})

describe('GET /indicators', () => {
  test('is an object keyed by indicator id with name, field names and default params', async () => {
    const { status, body } = await get('/indicators')
    expect(status).toBe(200)
    expect(Object.keys(body)).toEqual(Object.keys(INDICATORS))
    for (const [id, def] of Object.entries(INDICATORS)) {
      expect(body[id].name).toBe(def.name)
      expect(body[id].fields).toEqual(def.fields.map(f => f.name))
      for (const [k, p] of Object.entries(def.params)) expect(body[id].default_params[k]).toBe(p.default)
    }
    expect(body.bb.fields).toEqual(expect.arrayContaining(['bb_upper', 'bb_lower', 'bb_mid', 'bb_width', 'is_squeeze']))
    expect(body.ema.fields).toEqual(expect.arrayContaining(['ema_fast', 'ema_slow', 'uptrend', 'downtrend']))
  })
  test('field_info gives each field its type and meaning', async () => {
    const { body } = await get('/indicators')
    expect(body.bb.field_info.find((f: any) => f.name === 'is_squeeze')).toMatchObject({ type: 'boolean' })
    expect(body.bb.field_info.find((f: any) => f.name === 'bb_upper')).toMatchObject({ type: 'number' })
    for (const info of Object.values(body) as any[]) {
      expect(info.field_info.map((f: any) => f.name)).toEqual(info.fields)
      for (const f of info.field_info) expect(f.description.length).toBeGreaterThan(3)
    }
  })
})
