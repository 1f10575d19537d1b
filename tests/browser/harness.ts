/**
 * Browser tests' harness: the real server (`bun src/cli.ts serve`, PORT=0, read back from
 * its log line) on a small synthetic store, and Debian's chromium driven by playwright-core.
 * Screenshots go to tests/browser/output/ (gitignored) for review.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { tempDir } from '../helpers/fixtures'

const ROOT = join(import.meta.dir, '..', '..')
const BUN = join(ROOT, 'node_modules', '.bin', 'bun')
export const OUTPUT_DIR = join(import.meta.dir, 'output')

/** the real chromium binary (the /usr/bin/chromium wrapper prints shell noise) */
export const CHROMIUM = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find(p => existsSync(p)) ?? null
export const SKIP_REASON = CHROMIUM ? '' : 'no chromium at /usr/lib/chromium/chromium or /usr/bin/chromium (apt-get install chromium fonts-nanum; .ci/run does)'
// the line .ci/run repeats beside its closing count (tests/helpers/setup.ts)
if (!CHROMIUM) process.stderr.write(`skipped: the browser tests - ${SKIP_REASON}\n`)

export interface Served {
  base: string
  dataDir: string
  /** kill the server with SIGKILL, run `whileDown`, and start it again on the same port and DATA_DIR */
  crashAndRestart(whileDown?: () => Promise<void>): Promise<void>
  stop(): Promise<void>
}

/** Generate a synthetic store and start the real server on a free port. */
export async function startServed(opts: { coins?: number; days?: number; env?: Record<string, string>; prepare?: string[][]; before?: (dataDir: string) => Promise<void> } = {}): Promise<Served> {
  const dataDir = tempDir('perpsim-web-')
  const env = { ...process.env, DATA_DIR: dataDir, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', WORKERS: '2', ...opts.env }
  const gen = Bun.spawnSync([BUN, 'src/cli.ts', 'data', 'generate', '--coins', String(opts.coins ?? 12), '--days', String(opts.days ?? 240)], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  if (gen.exitCode !== 0) throw new Error(`data generate failed: ${gen.stderr.toString()}`)
  // CLI commands run on the store before the server starts (e.g. `jobs run rankings`)
  for (const args of opts.prepare ?? []) {
    const p = Bun.spawnSync([BUN, 'src/cli.ts', ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    if (p.exitCode !== 0) throw new Error(`${args.join(' ')} failed: ${p.stderr.toString()}`)
  }
  // work done in the test's own process on the store before the server starts
  await opts.before?.(dataDir)
  let proc!: ReturnType<typeof Bun.spawn>
  /** start `serve` and read its port back from the log line */
  const serve = (vars: Record<string, string | undefined>) =>
    new Promise<number>((resolve, reject) => {
      proc = Bun.spawn([BUN, 'src/cli.ts', 'serve'], { cwd: ROOT, env: vars, stdout: 'pipe', stderr: 'pipe' })
      const started = proc
      let log = ''
      const timer = setTimeout(() => reject(new Error(`server did not start in 60 s: ${log}`)), 60_000)
      const read = async (stream: ReadableStream<Uint8Array>) => {
        const dec = new TextDecoder()
        for await (const chunk of stream) {
          log += dec.decode(chunk)
          const m = /listening on http:\/\/[^:]+:(\d+)/.exec(log)
          if (m) {
            clearTimeout(timer)
            resolve(Number(m[1]))
          }
        }
      }
      void read(started.stdout as ReadableStream<Uint8Array>)
      void read(started.stderr as ReadableStream<Uint8Array>)
      void started.exited.then(code => reject(new Error(`server exited with ${code}: ${log}`)))
    })
  const port = await serve(env)
  return {
    base: `http://127.0.0.1:${port}`,
    dataDir,
    async crashAndRestart(whileDown) {
      proc.kill('SIGKILL')
      await proc.exited
      await whileDown?.()
      await serve({ ...env, PORT: String(port) })
    },
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/** every console error and uncaught page error, to assert none happened */
export function collectErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', m => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`)
  })
  page.on('pageerror', e => errors.push(`pageerror: ${e.message}`))
  return errors
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true })
  const path = join(OUTPUT_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage })
  return path
}

/**
 * Code run inside the page is given as a string: the root tsconfig has no DOM types (the
 * page's own code is checked with them, web/tsconfig.json), and a string keeps them apart.
 */
export const PIXELS_OF_COLOUR = `(selector, [r, g, b]) => {
  let n = 0
  for (const c of document.querySelectorAll(selector + ' canvas')) {
    const ctx = c.getContext('2d')
    if (!ctx || c.width === 0 || c.height === 0) continue
    const d = ctx.getImageData(0, 0, c.width, c.height).data
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 200 && Math.abs(d[i] - r) < 24 && Math.abs(d[i + 1] - g) < 24 && Math.abs(d[i + 2] - b) < 24) n++
  }
  return n
}`

/** Pixels of one colour (within a small tolerance) on the canvases inside a selector: a series drawn in that colour. */
export async function pixelsOfColour(page: Page, selector: string, rgb: [number, number, number]): Promise<number> {
  return page.evaluate<number>(`(${PIXELS_OF_COLOUR})(${JSON.stringify(selector)}, ${JSON.stringify(rgb)})`)
}

/** Wait until a condition read through playwright holds (10 s at most). */
export async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await Bun.sleep(50)
  }
}
