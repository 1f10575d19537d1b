/**
 * GET / and /static/<file>: the page built by Bun from web/index.html, served with cache
 * headers (index revalidated, hashed assets immutable), gzipped on request; rebuilt only
 * when its sources change; and embedded in `npm run build`'s single binary.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { mkdirSync } from 'node:fs'
import { ensurePageBuilt, sourceDigest, WEB_KIT_FILES, WEB_SOURCE_DIR } from '../src/web/build'
import { Elysia } from 'elysia'
import { webModule } from '../src/modules/web'
import { makeHarness, tempDir } from './helpers/harness'

const ROOT = join(import.meta.dir, '..')
const BUN = join(ROOT, 'node_modules', '.bin', 'bun')
const h = makeHarness()
const dirs: string[] = []
afterAll(() => {
  h.cleanup()
  dirs.forEach(d => rmSync(d, { recursive: true, force: true }))
})

async function get(path: string, headers: Record<string, string> = {}) {
  return h.app.handle(new Request(`http://localhost${path}`, { headers }))
}

describe('serving the page', () => {
  test('/ is the built index.html, no-cache with an ETag, and answers 304 to a matching If-None-Match', async () => {
    const res = await get('/')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    const html = await res.text()
    expect(html).toContain('<div id="app"></div>')
    // the bundler rewrote the entry's script and stylesheet to hashed names under /static/
    expect(html).toMatch(/<script type="module" crossorigin src="\/static\/index-[a-z0-9]+\.js">/)
    expect(html).toMatch(/href="\/static\/index-[a-z0-9]+\.css"/)
    expect(html).not.toContain('main.tsx')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-f]{20}"$/)
    const again = await get('/', { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  test('hashed assets are immutable for a year, gzipped when accepted, and an unknown name is a 404', async () => {
    const html = await (await get('/')).text()
    const js = /src="(\/static\/[^"]+\.js)"/.exec(html)![1]
    const plain = await get(js)
    expect(plain.status).toBe(200)
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(plain.headers.get('content-encoding')).toBeNull()
    const body = new Uint8Array(await plain.arrayBuffer())
    const zipped = await get(js, { 'accept-encoding': 'gzip, br' })
    expect(zipped.headers.get('content-encoding')).toBe('gzip')
    const raw = new Uint8Array(await zipped.arrayBuffer())
    expect(Bun.gunzipSync(raw)).toEqual(body)
    expect(raw.length).toBeLessThan(body.length / 2)
    // the bundle holds lightweight-charts' production build and nothing of the server
    const text = new TextDecoder().decode(body)
    expect(text).toContain('TradingView')
    expect(text).not.toContain('sinclair')
    expect(text).not.toContain('bun:sqlite')
    const missing = await get('/static/index-nope.js')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ detail: 'Not Found' })
  })

  test('/favicon.ico is the site’s icon (browsers ask for it on every HTML page)', async () => {
    const res = await get('/favicon.ico')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(await res.text()).toBe(readFileSync(join(WEB_SOURCE_DIR, 'favicon.svg'), 'utf8'))
    // the page links the same icon under its hashed name
    expect(await (await get('/')).text()).toMatch(/<link rel="icon" href="\/static\/favicon-[a-z0-9]+\.svg"/)
  })

  test('the page routes are left out of /openapi.json', async () => {
    const spec = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(spec.paths)).not.toContain('/')
    expect(Object.keys(spec.paths).some(p => p.startsWith('/static'))).toBe(false)
  })
})

/** every import of a value (not `import type`) that leaves `dir`, in any file below it, as "file: 'specifier'" */
function valueImportsFromOutside(dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (/\.tsx?$/.test(name)) {
        for (const m of readFileSync(p, 'utf8').matchAll(/^import\s+(?!type\b)[^'"]*?from\s*'([^']+)'/gm)) {
          const target = resolve(dirname(p), m[1])
          // the kit, as it stands beside web/ (src/time.ts, ...): in the checkout or in a copy
          const kit = KIT.includes(relative(dirname(dir), target.endsWith('.ts') ? target : `${target}.ts`))
          if (m[1].startsWith('.') && relative(dir, target).startsWith('..') && !kit) out.push(`${relative(dir, p)}: '${m[1]}'`)
        }
      }
    }
  }
  walk(dir)
  return out
}

/** the kit files web/ may take values from, relative to the project root */
const KIT = WEB_KIT_FILES.map(f => relative(ROOT, f))

/**
 * a copy of web/ inside the project (so preact and lightweight-charts resolve from
 * node_modules), with the kit files beside it as they stand beside web/ in the checkout
 */
function copyOfWeb(): string {
  const base = join(ROOT, '.tmp', `web-${process.pid}-${Math.random().toString(36).slice(2)}`)
  mkdirSync(join(base, 'src'), { recursive: true })
  const src = join(base, 'web')
  cpSync(WEB_SOURCE_DIR, src, { recursive: true })
  for (const k of KIT) cpSync(join(ROOT, k), join(base, k))
  dirs.push(base)
  return src
}

describe('building the page', () => {
  test('web/ takes only types from the server, so the source digest covers everything the bundle holds', () => {
    expect(valueImportsFromOutside(WEB_SOURCE_DIR)).toEqual([])
  })

  test('the check reads web/’s subfolders and tells a value import from outside web/ from one of a sibling', () => {
    const src = copyOfWeb()
    mkdirSync(join(src, 'views', 'deep'), { recursive: true })
    writeFileSync(
      join(src, 'views', 'deep', 'probe.ts'),
      "import { useI18n } from '../../ui'\nimport type { Settings } from '../../settings'\nimport type { Timeframe } from '../../../src/market/timeframe'\nimport { DAY_MS } from '../../../src/time'\nimport {\n  TIMEFRAMES,\n} from '../../../src/market/timeframe'\n",
    )
    // the kit (src/time.ts and its siblings, which import nothing) is allowed; any other value from src/ is not
    expect(valueImportsFromOutside(src)).toEqual([`views/deep/probe.ts: '../../../src/market/timeframe'`])
  })

  test('a build is reused while the sources are unchanged, and an edit builds a new folder', async () => {
    const src = copyOfWeb()
    const out = tempDir('perpsim-webout-')
    dirs.push(out)
    const first = await ensurePageBuilt(out, src)
    expect(existsSync(join(first, 'index.html'))).toBe(true)
    const stamp = readdirSync(first).sort()
    expect(await ensurePageBuilt(out, src)).toBe(first)
    expect(readdirSync(first).sort()).toEqual(stamp)
    const before = sourceDigest(src)
    writeFileSync(join(src, 'style.css'), `${readFileSync(join(src, 'style.css'), 'utf8')}\n.changed { color: red; }\n`)
    expect(sourceDigest(src)).not.toBe(before)
    const second = await ensurePageBuilt(out, src)
    expect(second).not.toBe(first)
    const css = readdirSync(second).find(f => f.endsWith('.css'))!
    expect(readFileSync(join(second, css), 'utf8')).toContain('.changed')
    // no temp folder is left behind
    expect(readdirSync(out).filter(f => f.startsWith('.tmp-'))).toEqual([])
  })

  test('a broken source fails the build with the bundler’s message, and / answers 503 rather than a half page', async () => {
    const src = copyOfWeb()
    const out = tempDir('perpsim-webout-')
    dirs.push(out)
    writeFileSync(join(src, 'main.tsx'), "import { nothing } from './no-such-module'\nnothing()\n")
    const failure = ensurePageBuilt(out, src)
    await expect(failure).rejects.toThrow(/building the page failed: .*no-such-module/)
    expect(readdirSync(out)).toEqual([])
    const app = new Elysia().use(webModule(() => ensurePageBuilt(out, src).then(() => { throw new Error('unreachable') })))
    const res = await app.handle(new Request('http://localhost/'))
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^the page is not available: building the page failed: .*no-such-module/)
  })
})

describe('the single binary', () => {
  test('npm run build embeds the page: the binary serves / and its assets from another directory', async () => {
    const out = tempDir('perpsim-webbin-')
    dirs.push(out)
    const exe = join(out, 'perpsim')
    // package.json's own build script, with the binary written to the temp folder
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build
    for (const step of script.split('&&').map(s => s.trim())) {
      const argv = step.split(/\s+/).map(a => (a === 'dist/perpsim' ? exe : a))
      expect(argv[0]).toBe('bun')
      const p = Bun.spawnSync([BUN, ...argv.slice(1)], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      expect(p.stderr.toString()).not.toContain('error:')
      expect(p.exitCode).toBe(0)
    }
    const data = join(out, 'data')
    expect(Bun.spawnSync([exe, 'data', 'generate', '--coins', '3', '--days', '2'], { cwd: out, env: { ...process.env, DATA_DIR: data } }).exitCode).toBe(0)
    const proc = Bun.spawn([exe, 'serve'], { cwd: out, env: { ...process.env, DATA_DIR: data, PORT: '0', HOST: '127.0.0.1', OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'info' }, stdout: 'pipe', stderr: 'pipe' })
    try {
      let log = ''
      const dec = new TextDecoder()
      const reader = proc.stderr.getReader()
      let port = 0
      const started = Date.now()
      while (!port && Date.now() - started < 30_000) {
        const { value, done } = await reader.read()
        if (done) break
        log += dec.decode(value)
        port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(log)?.[1] ?? 0)
      }
      expect(log).toContain('page: /$bunfs/root/page')
      expect(port).toBeGreaterThan(0)
      const index = await fetch(`http://127.0.0.1:${port}/`)
      expect(index.status).toBe(200)
      const html = await index.text()
      for (const asset of html.match(/\/static\/[^"]+/g)!) {
        const res = await fetch(`http://127.0.0.1:${port}${asset}`)
        expect(res.status).toBe(200)
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(asset.endsWith('.js') ? 100_000 : 100)
      }
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  }, 120_000)
})
