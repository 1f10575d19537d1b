/** The builder endpoints through the Elysia module: indicator list and presets. */
import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { INDICATORS } from '../src/indicators/registry'
import { errorHandler } from '../src/http/errors'
import { openapiPlugin } from '../src/http/openapi'
import { builderModule } from '../src/modules/builder'
import { strategiesModule } from '../src/modules/strategies'
import { conditionsCount } from '../src/strategies/conditions'
import { validateStrategy } from '../src/strategies/validate'

// as the app composes it: a 404 is the one error route's answer (src/http/errors.ts)
const app = new Elysia().use(errorHandler).use(builderModule())
const get = async (path: string, on: { handle(r: Request): Promise<Response> } = app) => {
  const res = await on.handle(new Request(`http://localhost${path}`))
  return { status: res.status, body: (await res.json()) as any }
}

describe('GET /builder/indicators', () => {
  test('is an array of the registry entries, each with its id', async () => {
    const { status, body } = await get('/builder/indicators')
    expect(status).toBe(200)
    expect(body.map((x: any) => x.id)).toEqual(Object.keys(INDICATORS))
    const bb = body.find((x: any) => x.id === 'bb')
    expect(bb.name).toBe(INDICATORS.bb.name)
    expect(bb.default_params).toMatchObject({ period: 20, std: 2 })
    expect(bb.field_info.length).toBe(bb.fields.length)
  })
  test('shows the indicators and fields the named strategies added, with the bb ddof and ema adjust params', async () => {
    const { body } = await get('/builder/indicators')
    const fieldsOf = (id: string) => body.find((x: any) => x.id === id).fields
    expect(fieldsOf('volume_profile')).toEqual(['vp_poc', 'vp_dev'])
    expect(fieldsOf('atr')).toContain('atr_sma_prev')
    expect(fieldsOf('heikin_ashi')).toEqual(expect.arrayContaining(['ha_bearish', 'ha_body', 'ha_body_top', 'ha_body_bottom', 'ha_upper_wick', 'ha_lower_wick']))
    expect(body.find((x: any) => x.id === 'bb').param_info.ddof).toMatchObject({ default: 0, min: 0, max: 1, integer: true })
    expect(body.find((x: any) => x.id === 'ema').param_info.adjust).toMatchObject({ default: 0, min: 0, max: 1, integer: true })
  })
})

describe('named strategies are presets too', () => {
  test('every registry strategy loads from /builder/presets/<id> as the same tree and settings', async () => {
    const strategies = await get('/strategies', new Elysia().use(strategiesModule()))
    for (const s of strategies.body) {
      const p = await get(`/builder/presets/${s.id}`)
      expect(p.status).toBe(200)
      expect({ id: s.id, entry: p.body.entry, exit: p.body.exit_conditions, indicators: p.body.indicators }).toEqual({ id: s.id, entry: s.entry, exit: s.exit_conditions, indicators: s.indicators })
      expect([p.body.sl_pct, p.body.tp_pct, p.body.max_bars, p.body.direction]).toEqual([s.default_params.sl_pct, s.default_params.tp_pct, s.default_params.max_bars, s.default_params.direction])
    }
  })
  test('our former rules are presets under their own names, e.g. the TTM squeeze', async () => {
    const p = await get('/builder/presets/ttm-squeeze-short')
    expect(p.status).toBe(200)
    expect(p.body.indicators).toMatchObject({ keltner: { period: 20, atr_period: 20, mult: 1.5 } })
    // served under the contract's top-level AND (the preset itself is the bare leaf)
    expect((await get('/builder/presets/supertrend-adx-long')).body.exit_conditions).toEqual({ type: 'AND', conditions: [{ field: 'st_bullish', op: '==', value: false }] })
  })

  test("every preset's trees have the contract's top level {type: 'AND', conditions: [...]}", async () => {
    const { body } = await get('/builder/presets')
    for (const item of body) {
      const full = (await get(`/builder/presets/${item.id}`)).body
      expect([item.id, full.entry.type]).toEqual([item.id, 'AND'])
      if (full.exit_conditions !== null) expect([item.id, full.exit_conditions.type]).toEqual([item.id, 'AND'])
    }
    expect((await get('/builder/presets/ema-20-50-cross-long')).body.entry).toEqual({
      type: 'AND',
      conditions: [{ field: 'ema_fast', op: 'crosses_above', value: { field: 'ema_slow' } }],
    })
  })
})

describe('GET /builder/presets', () => {
  test('lists at least 8 presets in the list-item shape', async () => {
    const { status, body } = await get('/builder/presets')
    expect(status).toBe(200)
    expect(body.length).toBeGreaterThanOrEqual(8)
    for (const item of body) {
      expect(Object.keys(item).sort()).toEqual(['conditions_count', 'direction', 'id', 'indicators', 'name', 'sl_pct', 'tp_pct'])
      expect(Array.isArray(item.indicators)).toBe(true)
    }
  })
  test('each list item matches its full preset, which is a valid strategy', async () => {
    const { body } = await get('/builder/presets')
    for (const item of body) {
      const full = await get(`/builder/presets/${item.id}`)
      expect(full.status).toBe(200)
      expect(Object.keys(full.body).sort()).toEqual(['direction', 'entry', 'exit_conditions', 'id', 'indicators', 'max_bars', 'name', 'sl_pct', 'tp_pct'])
      expect(Object.keys(full.body.indicators)).toEqual(item.indicators)
      expect(conditionsCount(full.body.entry)).toBe(item.conditions_count)
      expect(validateStrategy(full.body)).toEqual([])
    }
  })
  test('an unknown preset is a 404 naming it', async () => {
    const { status, body } = await get('/builder/presets/no-such-preset')
    expect(status).toBe(404)
    expect(body).toEqual({ detail: "Preset 'no-such-preset' not found" })
  })
})

test('the routes and the condition-tree schema appear in /openapi.json without dangling references', async () => {
  const full = new Elysia().use(openapiPlugin()).use(strategiesModule()).use(builderModule())
  const { status, body } = await get('/openapi.json', full)
  expect(status).toBe(200)
  for (const p of ['/strategies', '/indicators', '/builder/indicators', '/builder/presets', '/builder/presets/{preset_id}'])
    expect(body.paths[p]?.get).toBeDefined()
  const text = JSON.stringify(body)
  for (const m of text.matchAll(/"\$ref":"([^"]+)"/g)) {
    const ref = m[1]
    if (ref.startsWith('#/')) {
      const target = ref.slice(2).split('/').reduce((o: any, k) => o?.[k], body)
      expect(target, `dangling ${ref}`).toBeDefined()
    } else {
      // a bare "$ref":"ConditionTree" must resolve to a schema with that $id
      expect(text).toContain(`"$id":"${ref}"`)
    }
  }
})
