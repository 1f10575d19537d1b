/** The single binary draws the same cards as the checkout: its embedded fonts are found (copied out of /$bunfs for resvg). */
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from './helpers/fixtures'
import { makeHarness } from './helpers/harness'

const ROOT = join(import.meta.dir, '..')
const out = tempDir('perpsim-cards-bin-')
afterAll(() => rmSync(out, { recursive: true, force: true }))

test("the compiled binary's Korean and English cards are byte for byte the checkout's", async () => {
  const exe = join(out, 'perpsim')
  // what `npm run build` runs, into this test's folder
  const build = Bun.spawnSync([join(ROOT, 'node_modules/.bin/bun'), 'scripts/build.ts', '--outfile', exe], { cwd: ROOT, stderr: 'pipe', stdout: 'pipe' })
  expect(build.exitCode).toBe(0)
  const data = join(out, 'data')
  const env = { ...process.env, DATA_DIR: data, OFFLINE: '1', DEMO: '0', LOG_LEVEL: 'warn', TMPDIR: join(out, 'tmp') }
  Bun.spawnSync(['mkdir', '-p', env.TMPDIR])
  expect(Bun.spawnSync([exe, 'data', 'generate', '--coins', '4', '--days', '40'], { cwd: out, env }).exitCode).toBe(0)
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = probe.port!
  probe.stop(true)
  const proc = Bun.spawn([exe, 'serve'], { cwd: out, env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stderr: 'pipe' })
  const cards: Record<string, Uint8Array> = {}
  const paths = ['/og?topN=4&sl=4&tp=5&lang=ko', '/og?topN=4&sl=4&tp=5&lang=en']
  try {
    for (let i = 0; i < 300; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break
      } catch {}
      await Bun.sleep(100)
    }
    for (const p of paths) {
      const r = await fetch(`http://127.0.0.1:${port}${p}`)
      expect(r.status).toBe(200)
      cards[p] = new Uint8Array(await r.arrayBuffer())
    }
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
  // the same store, in process, with the fonts from node_modules
  const h = makeHarness({ dataDir: data })
  try {
    for (const p of paths) {
      const mine = new Uint8Array(await (await h.app.handle(new Request(`http://localhost${p}`))).arrayBuffer())
      expect(cards[p].length).toBeGreaterThan(20_000)
      expect(Buffer.compare(Buffer.from(cards[p]), Buffer.from(mine))).toBe(0)
    }
  } finally {
    h.cleanup()
  }
}, 120_000)
