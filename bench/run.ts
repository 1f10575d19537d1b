/**
 * `bun run bench [name...]`: runs every benchmark script in bench/ (or the named ones)
 * one after the other, each in its own process so one's memory does not weigh on the
 * next. Their tables are what docs/benchmarks.md keeps. Each runs with the allocator's
 * settings every perpsim process has (src/allocator-settings.ts), so a bench that times the
 * engine in its own process allocates as the server does; the environment can override them.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ALLOCATOR_SETTINGS } from '../src/allocator-settings'

const dir = import.meta.dir
const wanted = process.argv.slice(2)
const scripts = readdirSync(dir)
  .filter(f => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter(f => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort()
let failed = 0
for (const f of scripts) {
  console.log(`\n## bench/${f}\n`)
  const p = Bun.spawnSync([process.execPath, join(dir, f)], { stdout: 'inherit', stderr: 'inherit', env: { ...ALLOCATOR_SETTINGS, ...process.env, OFFLINE: '1' } })
  if (p.exitCode !== 0) {
    failed++
    console.log(`bench/${f} exited with ${p.exitCode}`)
  }
}
process.exit(failed ? 1 : 0)
