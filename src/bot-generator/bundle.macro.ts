/**
 * Bundle-time functions (Bun macros, imported `with { type: 'macro' }` by
 * runtime-source.ts). Their results are inlined where they are called: when the service
 * runs from source, as the module is loaded; in `npm run build`'s single binary, at compile
 * time, so the binary carries the bundle and needs neither the sources nor node_modules.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')

/** runtime/bot.ts and every project module it imports, as one ES module for node. */
export function botBundle(): string {
  const r = Bun.spawnSync(
    [process.execPath, 'build', join(import.meta.dir, 'runtime', 'bot.ts'), '--target=node', '--format=esm', '--external', 'ccxt'],
    { cwd: ROOT, stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NODE_ENV: 'production' } },
  )
  if (r.exitCode !== 0) throw new Error(`bundling the bot failed: ${r.stderr.toString()}`)
  return r.stdout.toString()
}

/** The installed ccxt's version: the generated bot's package.json pins it. */
export function ccxtVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'ccxt', 'package.json'), 'utf8')) as { version: string }).version
}

/** Every exchange id the pinned ccxt knows: a generated bot's `exchange` must be one. */
export function ccxtExchangeIds(): string[] {
  // read from ccxt's entry module (`const exchanges = { 'id': id, … }`) rather than loading the library
  const src = readFileSync(join(ROOT, 'node_modules', 'ccxt', 'js', 'ccxt.js'), 'utf8')
  const block = /const exchanges = \{([^}]*)\}/.exec(src)
  const ids = block ? [...block[1].matchAll(/'([a-z0-9]+)':/g)].map(m => m[1]) : []
  if (!ids.includes('binanceusdm')) throw new Error('ccxt exchange list not found in node_modules/ccxt/js/ccxt.js')
  return ids
}
