/**
 * The simulator page (web/) built by Bun's bundler from its HTML entry point.
 *
 * In a checkout the page is built at start-up when the built files are missing or stale:
 * the output folder is named by a digest of everything that shapes the bundle (web/'s
 * files, the lockfile, Bun's version), so a folder that exists is never stale and an edit
 * to web/ simply builds a new folder. Building writes a temp folder and renames it into
 * place, so two processes starting at once never serve a half-written page. Inside
 * `npm run build`'s single binary there are no sources: the build script builds the page
 * first (`bun src/web/build.ts dist/page`) and embeds that folder (`--asset`).
 * Why this and not Bun's HTML imports: docs/web.md.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { PROJECT_ROOT } from '../paths'

export const WEB_SOURCE_DIR = join(PROJECT_ROOT, 'web')
/** where a checkout keeps its built pages, one folder per source digest (gitignored) */
export const WEB_BUILD_ROOT = join(PROJECT_ROOT, 'dist', 'web')
/**
 * the prebuilt page of the single binary: `npm run build` (scripts/build.ts) writes dist/page and
 * embeds it with `--asset ./dist/page`, which keeps only the folder's own name (/$bunfs/root/page)
 */
export const EMBEDDED_PAGE_DIR = Bun.isStandaloneExecutable ? join(PROJECT_ROOT, 'page') : join(PROJECT_ROOT, 'dist', 'page')
/** URL prefix of the hashed assets */
export const STATIC_PREFIX = '/static/'

function listFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...listFiles(p))
    else out.push(p)
  }
  return out
}

/**
 * The files of src/ that web/ may take values from: the kit below everything (time units and
 * forms, the sorted-series search, rounding), which imports nothing, so the page and the
 * server share one definition of each. Anything else of src/ web/ takes as types only (tested).
 */
export const WEB_KIT_FILES = ['src/time.ts', 'src/sorted-search.ts', 'src/round.ts'].map(f => join(PROJECT_ROOT, f))

/**
 * sha256 of what shapes the bundle: web/'s files, the kit files it imports, the lockfile
 * (the libraries' versions), the bundler's version and this file (the build options).
 * web/ imports nothing else of src/ but types (tested), so no other server file changes the bundle.
 */
export function sourceDigest(sourceDir = WEB_SOURCE_DIR): string {
  const h = createHash('sha256')
  h.update(`bun ${Bun.version}\n`)
  h.update(readFileSync(import.meta.path))
  for (const f of [...listFiles(sourceDir), ...WEB_KIT_FILES]) {
    h.update(`${relative(sourceDir, f)}\n`)
    h.update(readFileSync(f))
  }
  const lock = join(PROJECT_ROOT, 'package-lock.json')
  if (existsSync(lock)) h.update(readFileSync(lock))
  return h.digest('hex').slice(0, 16)
}

/** Bun.build of web/index.html into outDir (minified, production builds of the libraries). */
export async function bundlePage(outDir: string, sourceDir = WEB_SOURCE_DIR): Promise<void> {
  const fail = (msgs: string[]) => new Error(`building the page failed: ${msgs.join('; ')}`)
  let res: Awaited<ReturnType<typeof Bun.build>>
  try {
    res = await Bun.build({
      entrypoints: [join(sourceDir, 'index.html')],
      outdir: outDir,
      target: 'browser',
      minify: true,
      // lightweight-charts' package exports a development build under the default conditions
      conditions: ['production'],
      define: { 'process.env.NODE_ENV': '"production"' },
      naming: { entry: '[name].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
      publicPath: STATIC_PREFIX,
      // the page's JSX is Preact's (as web/tsconfig.json says for the type check; repeated so the build does not depend on which tsconfig is found)
      jsx: { runtime: 'automatic', importSource: 'preact' },
    })
  } catch (err) {
    // Bun.build throws an AggregateError of its build messages
    throw fail(err instanceof AggregateError ? err.errors.map(e => String(e instanceof Error ? e.message : e)) : [String(err)])
  }
  if (!res.success) throw fail(res.logs.map(l => String(l.message)))
}

/**
 * The folder holding the built page for the current sources: reused when it exists,
 * else built now. Returns its path.
 */
export async function ensurePageBuilt(buildRoot = WEB_BUILD_ROOT, sourceDir = WEB_SOURCE_DIR): Promise<string> {
  const digest = sourceDigest(sourceDir)
  const dir = join(buildRoot, digest)
  if (existsSync(join(dir, 'index.html'))) return dir
  mkdirSync(buildRoot, { recursive: true })
  const tmp = join(buildRoot, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`)
  try {
    await bundlePage(tmp, sourceDir)
    try {
      renameSync(tmp, dir)
    } catch (err) {
      // another process finished the same digest first: its folder is as good as ours
      if (!existsSync(join(dir, 'index.html'))) throw err
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  return dir
}

/** The page's folder: the embedded prebuilt one inside the binary, else built from web/. */
export async function locatePage(): Promise<string> {
  if (Bun.isStandaloneExecutable || !existsSync(WEB_SOURCE_DIR)) {
    if (existsSync(join(EMBEDDED_PAGE_DIR, 'index.html'))) return EMBEDDED_PAGE_DIR
    throw new Error(`no page: ${EMBEDDED_PAGE_DIR}/index.html is missing (build with npm run build)`)
  }
  return ensurePageBuilt()
}

// `bun src/web/build.ts <outDir>`: the prebuilt page embedded by `npm run build`
if (import.meta.main) {
  const out = process.argv[2]
  if (!out) {
    console.error('usage: bun src/web/build.ts <outDir>')
    process.exit(2)
  }
  rmSync(out, { recursive: true, force: true })
  await bundlePage(out)
  console.log(`page built into ${out}`)
}
