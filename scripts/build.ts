#!/usr/bin/env bun
/**
 * `npm run build`: the single binary dist/perpsim (or the path given, plain or as --outfile).
 * Everything the service reads at run time goes inside it, found rather than listed so a
 * new one cannot be forgotten:
 * - every worker entry (`*.worker.ts` under workers/ and src/): a Worker started from a
 *   path the bundler never saw fails at run time with ModuleNotFound;
 * - the migrations (db/), the data assets (assets/), and the built page (dist/page, when
 *   the project has a page: its build step src/web/build.ts runs first);
 * - fonts are embedded by their `with { type: 'file' }` imports.
 * Bun's header cap is raised inside the binary (--max-http-header-size), so oversized
 * headers get the service's JSON 431 rather than Bun's empty one (docs/operations.md).
 */
import { existsSync, readdirSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const BUN = process.execPath

function workerEntries(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...workerEntries(p))
    else if (e.name.endsWith('.worker.ts')) out.push(relative(ROOT, p))
  }
  return out
}

function run(cmd: string[]): void {
  const p = Bun.spawnSync(cmd, { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  if (p.exitCode !== 0) {
    process.stderr.write(`build failed: ${cmd.slice(1, 3).join(' ')} exited ${p.exitCode}\n`)
    process.exit(1)
  }
}

// the output path: `--outfile PATH` or the first plain argument (package.json passes dist/perpsim)
const args = process.argv.slice(2)
const i = args.indexOf('--outfile')
const outfile = resolve(ROOT, i >= 0 ? args[i + 1] : (args.find(a => !a.startsWith('-')) ?? join('dist', 'perpsim')))

if (existsSync(join(ROOT, 'src', 'web', 'build.ts'))) run([BUN, 'src/web/build.ts', 'dist/page'])
const workers = [...workerEntries(join(ROOT, 'workers')), ...workerEntries(join(ROOT, 'src'))]
const assets = ['db', 'assets', 'dist/page'].filter(d => existsSync(join(ROOT, d))).flatMap(d => ['--asset', `./${d}`])
run([BUN, 'build', '--compile', '--minify', '--compile-exec-argv=--max-http-header-size=65536', 'src/cli.ts', ...workers, ...assets, '--outfile', outfile])
console.log(`built ${relative(process.cwd(), outfile) || outfile} (workers: ${workers.join(', ')}; assets: ${assets.filter(a => a !== '--asset').join(', ')})`)
