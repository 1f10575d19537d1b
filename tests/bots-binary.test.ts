/** The bot generator inside `npm run build`'s single binary, run away from the checkout. */
import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { unzipSync } from 'fflate'
import { tempDir } from './helpers/fixtures'

const ROOT = join(import.meta.dir, '..')
const out = tempDir('perpsim-bots-bin-')
afterAll(() => rmSync(out, { recursive: true, force: true }))

test('the compiled binary generates a bot whose self-test passes under node (the bundle is inlined at compile time)', async () => {
  const exe = join(out, 'perpsim')
  // `npm run build`'s own command, with the binary written here
  const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build
  const argv = script.split(/\s+/)
  expect(argv[0]).toBe('bun')
  argv[0] = join(ROOT, 'node_modules/.bin/bun')
  argv[argv.indexOf('--outfile') + 1] = exe
  const build = Bun.spawnSync(argv, { cwd: ROOT, stderr: 'pipe', stdout: 'pipe' })
  expect(build.exitCode).toBe(0)
  const env = { PATH: process.env.PATH ?? '', HOME: out, TMPDIR: out, DATA_DIR: join(out, 'data') }
  expect(Bun.spawnSync([exe, 'data', 'generate', '--coins', '2', '--days', '20'], { cwd: out, env, stdout: 'pipe', stderr: 'pipe' }).exitCode).toBe(0)
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = probe.port!
  probe.stop(true)
  const proc = Bun.spawn([exe, 'serve'], { cwd: out, env: { ...env, PORT: String(port), HOST: '127.0.0.1', OFFLINE: '1', DEMO: '0' }, stderr: 'pipe', stdout: 'pipe' })
  try {
    let up = false
    for (let i = 0; i < 200 && !up; i++) {
      up = await fetch(`http://127.0.0.1:${port}/health`).then(r => r.ok, () => false)
      if (!up) await Bun.sleep(50)
    }
    expect(up).toBe(true)
    const res = await fetch(`http://127.0.0.1:${port}/generate-bot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ direction: 'long', indicators: { rsi: {} }, entry: { field: 'rsi', op: '<', value: 40 }, coins: ['BTCUSDT'], name: 'bin' }),
    })
    expect(res.status).toBe(200)
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    const dir = join(out, 'bot')
    for (const [path, data] of Object.entries(files)) {
      if (path.endsWith('/')) continue
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), data)
    }
    const run = Bun.spawnSync(['node', 'bot.mjs', '--self-test'], { cwd: join(dir, 'perpsim-bot-bin'), env: { PATH: env.PATH }, stdout: 'pipe', stderr: 'pipe' })
    expect(run.stderr.toString()).toContain('self-test passed')
    expect(run.exitCode).toBe(0)
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
  }
}, 120_000)
