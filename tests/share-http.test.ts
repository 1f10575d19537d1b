import { afterAll, describe, expect, test } from 'bun:test'
import { fillWalkUniverse, makeHarness } from './helpers/harness'

const T0 = Date.UTC(2025, 0, 1)
const COINS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'XRPUSDT', 'BNBUSDT']
const h = makeHarness({ fill: store => fillWalkUniverse(store, COINS, T0, 120, 5), env: { PUBLIC_URL: 'https://perpsim.example.org' } })
afterAll(() => h.cleanup())

const meta = (html: string, key: string) => {
  const m = new RegExp(`<meta (?:property|name)="${key.replace(/[:.]/g, '\\$&')}" content="([^"]*)">`).exec(html)
  return m ? m[1].replaceAll('&amp;', '&') : null
}

describe('GET /share', () => {
  test('is a noindex HTML page whose meta tags carry the recomputed figures', async () => {
    const r = await h.req('/share?preset=bb-squeeze-short&sl=6&tp=5&topN=5&lev=3&fee=0.04')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(r.headers.get('x-robots-tag')).toContain('noindex')
    const html: string = r.body
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">')
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', sl_pct: 6, tp_pct: 5, top_n: 5, leverage: 3, fee_pct: 0.0004 } })
    const desc = meta(html, 'og:description')!
    expect(desc).toContain(`${sim.body.win_rate.toFixed(1)}%`)
    expect(desc).toContain(`over ${sim.body.total_trades} trades`)
    expect(meta(html, 'twitter:card')).toBe('summary_large_image')
    expect(meta(html, 'og:title')).toContain('BB Squeeze SHORT')
  })

  test('a ruined run says when its equity reached zero, and its drawdown reads at most 100 %', async () => {
    const r = await h.req('/share?preset=bb-squeeze-short&sl=50&tp=50&topN=5&lev=125')
    const sim = await h.req('/simulate', { method: 'POST', json: { strategy: 'bb-squeeze-short', sl_pct: 50, tp_pct: 50, top_n: 5, leverage: 125 } })
    expect(sim.body.ruined_at).not.toBeNull()
    const desc = meta(r.body, 'og:description')!
    expect(desc).toContain(`Ruined on ${sim.body.ruined_at.slice(0, 10)}: the equity reached zero.`)
    expect(desc).toContain(`max drawdown −${sim.body.max_drawdown_pct.toFixed(1)}%`)
    expect(sim.body.max_drawdown_pct).toBeLessThanOrEqual(100)
  })

  test('og:image is /og with the same settings, og:url this page, and people are sent to / with the settings', async () => {
    const r = await h.req('/share?preset=bb-squeeze-short&sl=6&tp=5&topN=5&lev=3&fee=0.04&from=2025-02-01&lang=ko')
    const html: string = r.body
    const image = new URL(meta(html, 'og:image')!)
    expect(image.origin + image.pathname).toBe('https://perpsim.example.org/og')
    expect(Object.fromEntries(image.searchParams)).toEqual({ strategy: 'bb-squeeze-short', dir: 'short', sl: '6', tp: '5', topN: '5', lev: '3', fee: '0.04', from: '2025-02-01', lang: 'ko' })
    expect(meta(html, 'twitter:image')).toBe(image.toString())
    const page = new URL(meta(html, 'og:url')!)
    expect(page.pathname).toBe('/share')
    expect(page.searchParams.get('preset')).toBe('bb-squeeze-short')
    const refresh = /<meta http-equiv="refresh" content="0; url=([^"]*)">/.exec(html)![1].replaceAll('&amp;', '&')
    const sim = new URL(refresh)
    expect(sim.pathname).toBe('/')
    expect(sim.searchParams.get('strategy')).toBe('bb-squeeze-short')
    expect(sim.searchParams.get('sl')).toBe('6')
    expect(html).toContain(`<a href="${refresh.replaceAll('&', '&amp;')}">`)
    expect(html).toContain('<html lang="ko">')
    // the image the page points at is served
    const og = await h.app.handle(new Request(`http://localhost${image.pathname}${image.search}`))
    expect(og.status).toBe(200)
  })

  test('a builder preset id works and keeps its kind in the simulator link', async () => {
    const r = await h.req('/share?preset=bb-squeeze-breakdown&topN=5')
    expect(r.status).toBe(200)
    const refresh = /url=([^"]*)"/.exec(r.body)![1].replaceAll('&amp;', '&')
    expect(new URL(refresh).searchParams.get('preset')).toBe('bb-squeeze-breakdown')
  })

  test('an unknown preset is a 404 HTML page', async () => {
    const r = await h.req('/share?preset=no-such-thing')
    expect(r.status).toBe(404)
    expect(r.headers.get('content-type')).toContain('text/html')
    expect(r.body).toContain('no-such-thing')
  })

  test('preset is required', async () => {
    const r = await h.req('/share')
    expect(r.status).toBe(422)
    expect(r.body.detail[0].loc).toEqual(['query', 'preset'])
  })

  const NASTY = [
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    'javascript:alert(document.cookie)',
    '</title><svg/onload=alert(1)>',
    'ü☃𝄞\u202e\u0000"&<>',
    ' 10" onmouseover="x',
  ]
  const PARAMS = ['preset', 'dir', 'sl', 'tp', 'topN', 'lev', 'fee', 'from', 'to', 'lang']

  test('nothing a caller sends is echoed unescaped, in any parameter', async () => {
    for (const param of PARAMS)
      for (const bad of NASTY) {
        const q = new URLSearchParams({ preset: 'bb-squeeze-short', topN: '3' })
        q.set(param, bad)
        const res = await h.app.handle(new Request(`http://localhost/share?${q}`))
        const body = await res.text()
        expect([404, 422]).toContain(res.status)
        if (res.headers.get('content-type')?.includes('text/html')) {
          if (/[<>"'&]/.test(bad)) expect(body).not.toContain(bad) // text like javascript:… is harmless as text, never in a URL (below)
          for (const raw of ['<script', '<img', '<svg', 'onmouseover="']) expect(body).not.toContain(raw)
          // every URL in an attribute is ours: http(s) on our origin, never javascript:
          for (const m of body.matchAll(/(?:href|src|content)="([^"]*)"/g))
            if (/^[a-z]+:/i.test(m[1])) expect(m[1]).toMatch(/^https:\/\/perpsim\.example\.org\//)
        } else {
          expect(res.headers.get('content-type')).toContain('application/json')
        }
      }
  })

  test('a valid page escapes what it echoes (settings line, names) in text and attributes', async () => {
    const r = await h.req('/share?preset=bb-squeeze-short&topN=3&lang=en')
    const html: string = r.body
    for (const m of html.matchAll(/="([^"]*)"/g)) expect(m[1]).not.toMatch(/[<>]/)
  })
})

describe('GET /share caching', () => {
  test('an ETag and a max-age; If-None-Match with it is a 304', async () => {
    const r = await h.req('/share?preset=bb-squeeze-short&topN=3')
    const etag = r.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    expect(r.headers.get('cache-control')).toMatch(/max-age=\d+/)
    expect(r.headers.get('vary')).toBeNull() // links on PUBLIC_URL: the page is the same for every request
    const again = await h.req('/share?preset=bb-squeeze-short&topN=3', { headers: { 'if-none-match': `W/${etag}` } })
    expect(again.status).toBe(304)
    expect((await h.req('/share?preset=bb-squeeze-short&topN=3&lang=ko')).headers.get('etag')).not.toBe(etag)
  })
})
