import { afterAll, describe, expect, test } from 'bun:test'
import { buildApp } from '../src/app'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT', 'ADAUSDT', 'DOGEUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 150, 11) })
afterAll(() => h.cleanup())

const get = (path: string, headers: Record<string, string> = {}) => h.app.handle(new Request(`http://localhost${path}`, { headers }))
/** hashes of the results the run pipeline holds in memory */
const cachedHashes = (): string[] => [...(h.deps.runs['results'] as unknown as { results: Map<string, unknown> }).results.keys()]
const bytes = async (r: Response) => new Uint8Array(await r.arrayBuffer())

/** width and height from a PNG's IHDR chunk */
function pngSize(b: Uint8Array): { w: number; h: number } {
  const v = new DataView(b.buffer, b.byteOffset)
  return { w: v.getUint32(16), h: v.getUint32(20) }
}

describe('GET /og', () => {
  test('is a 1200×630 PNG with an ETag and a max-age', async () => {
    const r = await get('/og?strategy=bb-squeeze-short&sl=10&tp=8&topN=5&lev=5&fee=0.05')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('image/png')
    expect(r.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(r.headers.get('cache-control')).toMatch(/max-age=\d+/)
    expect(r.headers.get('vary')).toBeNull() // not the CORS plugin's `Vary: *`, which would make it uncacheable
    const png = await bytes(r)
    expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(pngSize(png)).toEqual({ w: 1200, h: 630 })
  })

  test('the legacy figure parameters change nothing: the same bytes and ETag with and without them', async () => {
    const base = '/og?strategy=ichimoku-long&topN=4&sl=5&tp=7'
    const plain = await get(base)
    // a second app on the same deps: its card cache is empty, so the forged card is drawn anew
    const fresh = buildApp(h.deps)
    const forged = await fresh.handle(new Request(`http://localhost${base}&wr=99.9&pf=42&ret=%2B9999&trades=100000&mdd=0`))
    expect(forged.status).toBe(200)
    expect(forged.headers.get('etag')).toBe(plain.headers.get('etag')!)
    expect(await bytes(forged)).toEqual(await bytes(plain))
  })

  test('the same settings written differently give the same card (normalised)', async () => {
    const a = await get('/og?strategy=bb-squeeze-short&topN=5&sl=10.0&fee=0.050')
    const b = await get('/og?fee=0.05&sl=10&topN=5&dir=short&strategy=bb-squeeze')
    expect(b.status).toBe(200)
    expect(b.headers.get('etag')).toBe(a.headers.get('etag')!)
  })

  test('different settings, language or data give a different ETag', async () => {
    const base = (await get('/og?topN=5')).headers.get('etag')
    expect((await get('/og?topN=5&sl=9')).headers.get('etag')).not.toBe(base)
    expect((await get('/og?topN=5&lang=ko')).headers.get('etag')).not.toBe(base)
  })

  test('new candles (a new data version) give a new ETag', async () => {
    const before = (await get('/og?topN=3')).headers.get('etag')
    const other = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 151, 11) })
    const after = (await other.app.handle(new Request('http://localhost/og?topN=3'))).headers.get('etag')
    other.cleanup()
    expect(after).not.toBe(before)
  })

  test('If-None-Match with the current ETag is a 304 without a body', async () => {
    const etag = (await get('/og?topN=5&tp=9')).headers.get('etag')!
    const r = await get('/og?topN=5&tp=9', { 'if-none-match': etag })
    expect(r.status).toBe(304)
    expect((await r.arrayBuffer()).byteLength).toBe(0)
  })

  test('the figures are the ones /simulate computes for the same settings (one cached path)', async () => {
    await get('/og?strategy=macd-cross-long&topN=6&sl=4&tp=6&lev=3&fee=0.04&from=2025-02-01&to=2025-04-30')
    const cachedBefore = new Set(cachedHashes())
    const sim = await h.req('/simulate', {
      method: 'POST',
      json: { strategy: 'macd-cross-long', top_n: 6, sl_pct: 4, tp_pct: 6, leverage: 3, fee_pct: 0.0004, start_date: '2025-02-01', end_date: '2025-04-30' },
    })
    expect(sim.status).toBe(200)
    // the card's run was in the result cache, before /simulate ran, under the hash /simulate computes
    expect(cachedBefore.has(sim.body.result_hash)).toBe(true)
  })

  test('timeframe and max bars (tf, bars) reach the run as /simulate takes them', async () => {
    await get('/og?strategy=bb-squeeze-long&topN=5&tf=4H&bars=12&lev=1')
    const cachedBefore = new Set(cachedHashes())
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-long', top_n: 5, sl_pct: 10, tp_pct: 8, timeframe: '4H', max_bars: 12, leverage: 1 } })
    expect(cachedBefore.has(sim.body.result_hash)).toBe(true)
  })

  test('out-of-range settings are 422 naming the field', async () => {
    for (const [q, field] of [['sl=0.1', 'sl'], ['tp=101', 'tp'], ['topN=536', 'topN'], ['lev=200', 'lev'], ['fee=2', 'fee'], ['lang=fr', 'lang'], ['from=2025-13-01', 'from'], ['dir=up', 'dir'], ['tf=3H', 'tf'], ['bars=0', 'bars']] as const) {
      const r = await h.req(`/og?${q}`)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(['query', field])
    }
  })

  test('from after to is a 422 on to', async () => {
    const r = await h.req('/og?from=2025-03-01&to=2025-02-01')
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['query', 'to'])
  })

  test('a dir that contradicts the strategy id is a 422 on dir', async () => {
    const r = await h.req('/og?strategy=bb-squeeze-short&dir=long')
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['query', 'dir'])
  })

  test('an unknown strategy is a 404', async () => {
    const r = await h.req('/og?strategy=nope-short')
    expect(r.status).toBe(404)
    expect(r.body.detail).toContain('nope-short')
  })

  test('a builder preset id draws a card too', async () => {
    const r = await get('/og?strategy=bb-squeeze-breakdown&topN=5')
    expect(r.status).toBe(200)
    expect(pngSize(await bytes(r))).toEqual({ w: 1200, h: 630 })
  })
})
