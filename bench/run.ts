/**
 * `bun run bench [name...]`: runs every benchmark script in bench/ (or the named ones)
 * one after the other, each in its own process so one's memory does not weigh on the
 * next. Their tables are what docs/benchmarks.md keeps.
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const dir = import.meta.dir
const wanted = process.argv.slice(2)
const scripts = readdirSync(dir)
  .filter(f => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter(f => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, '')))
  .sort()
let failed = 0
for (const f of scripts) {
  console.log(`\n## bench/${f}\n`)
  const p = Bun.spawnSync([process.execPath, join(dir, f)], { stdout: 'inherit', stderr: 'inherit', env: { ...process.env, OFFLINE: '1' } })
  if (p.exitCode !== 0) {
    failed++
    console.log(`bench/${f} exited with ${p.exitCode}`)
  }
}
process.exit(failed ? 1 : 0)
