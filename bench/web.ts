/**
 * The page: its JavaScript gzipped (lightweight-charts included), first paint of / in a cold
 * browser (a new chromium process each time), and a top-50 simulation from the click to the
 * equity chart drawn. Real server on a synthetic 535-coin × 2-year store; Debian's chromium
 * through playwright-core.
 *   bun bench/web.ts [--runs N]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { ensurePageBuilt } from '../src/web/build'
import { PIXELS_OF_COLOUR } from '../tests/browser/harness'
import { BUN, pct, ROOT, startServer } from './_server'

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 7
const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(p => existsSync(p))
const rows: [string, string, string][] = []
const row = (what: string, unit: string, v: number) => rows.push([what, unit, v.toFixed(unit === 'KB' ? 1 : 0)])

const dir = await ensurePageBuilt()
let jsRaw = 0
let jsGz = 0
let cssGz = 0
for (const f of readdirSync(dir)) {
  const body = readFileSync(join(dir, f))
  const gz = Bun.gzipSync(body, { level: 9 }).length
  if (f.endsWith('.js')) {
    jsRaw += body.length
    jsGz += gz
  } else if (f.endsWith('.css')) cssGz += gz
}
row('page JavaScript, minified', 'KB', jsRaw / 1024)
row('page JavaScript, gzipped (as served)', 'KB', jsGz / 1024)
row('page CSS, gzipped', 'KB', cssGz / 1024)

if (!CHROMIUM) {
  console.log('no chromium: browser figures skipped')
} else {
  const data = mkdtempSync(join(tmpdir(), 'perpsim-bench-web-'))
  const gen = Bun.spawnSync([BUN, join(ROOT, 'src/cli.ts'), 'data', 'generate', '--coins', '535', '--days', '730'], { cwd: ROOT, env: { ...process.env, DATA_DIR: data }, stderr: 'ignore' })
  if (gen.exitCode !== 0) throw new Error('data generate failed')
  const server = await startServer(data)
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  try {
    const fcp: number[] = []
    const ready: number[] = []
    for (let i = 0; i < runs; i++) {
      // cold: a new browser process with an empty profile and cache
      const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args })
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      await page.goto(`${server.url}/`)
      await page.waitForSelector('#f-strategy')
      const t = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        ready: performance.now(),
      }))
      fcp.push(t.fcp)
      ready.push(t.ready)
      await browser.close()
    }
    row(`first contentful paint of /, cold browser (p50 of ${runs})`, 'ms', pct(fcp, 50))
    row(`first contentful paint of /, cold browser (max of ${runs})`, 'ms', Math.max(...fcp))
    row(`form usable (strategies loaded), cold browser (p50 of ${runs})`, 'ms', pct(ready, 50))

    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args })
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(`${server.url}/`)
    await page.waitForSelector('#f-strategy')
    await page.selectOption('#f-strategy', 'bb-squeeze-short')
    await page.fill('#f-topN', '50')
    const clickToChart: number[] = []
    const serverMs: number[] = []
    for (let i = 0; i < runs + 1; i++) {
      // a stop the server has not seen: the result cache cannot answer
      await page.fill('#f-sl', (9 + (i + 1) / 100).toFixed(2))
      // timed inside the page (a string: the root tsconfig has no DOM types): click, then poll each frame for the new result's line
      const ms = await page.evaluate<number>(`new Promise(resolve => {
        const before = document.querySelector('#results')?.getAttribute('data-hash') ?? ''
        const t0 = performance.now()
        document.querySelector('#run').click()
        const count = ${PIXELS_OF_COLOUR}
        const drawn = () => {
          const res = document.querySelector('#results')
          return !!res && res.getAttribute('data-hash') !== before && count('#equity-chart', [0x1d, 0x4e, 0xd8]) > 100
        }
        const poll = () => (drawn() ? resolve(performance.now() - t0) : requestAnimationFrame(poll))
        requestAnimationFrame(poll)
      })`)
      const compute = Number(((await page.textContent('#results .hint')) ?? '').match(/(\d+) ms/)?.[1] ?? NaN)
      if (i > 0) {
        // the first run warms the workers' signal masks for these 50 coins
        clickToChart.push(ms)
        serverMs.push(compute)
      }
    }
    await browser.close()
    row(`top-50 /simulate, click to equity chart drawn (p50 of ${runs}, result cache missed)`, 'ms', pct(clickToChart, 50))
    row(`top-50 /simulate, click to equity chart drawn (max of ${runs})`, 'ms', Math.max(...clickToChart))
    row(`of which the server's compute_time_ms (p50)`, 'ms', pct(serverMs, 50))
  } finally {
    await server.stop()
    rmSync(data, { recursive: true, force: true })
  }
}

console.log('| measurement | unit | value |\n|---|---|---|')
for (const [w, u, v] of rows) console.log(`| ${w} | ${u} | ${v} |`)
