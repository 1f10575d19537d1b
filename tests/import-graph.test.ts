/**
 * The house's one-way flow, checked on the import graph of src/ and workers/ (every
 * static import, re-export and dynamic import, type-only ones included): no module
 * imports itself through a circle, and the lower layers never reach up.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return sourceFiles(p)
    return /\.tsx?$/.test(name) ? [p] : []
  })
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(=])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm

/** The specifiers a file imports (comments dropped first, so examples in them do not count). */
export function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  return [...code.matchAll(IMPORT)].map(m => m[1] ?? m[2] ?? m[3])
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null
  const base = resolve(dirname(from), spec)
  for (const p of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(p) && statSync(p).isFile()) return p
  throw new Error(`${relative(ROOT, from)}: cannot resolve '${spec}'`)
}

const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'workers'))]
const graph = new Map<string, { local: string[]; packages: string[] }>()
for (const f of files) {
  const specs = specifiersOf(readFileSync(f, 'utf8'))
  graph.set(f, {
    local: specs.map(s => resolveLocal(f, s)).filter((p): p is string => p !== null),
    packages: specs.filter(s => !s.startsWith('.')),
  })
}

/** Every circle of the graph, as the files of each strongly connected component (Tarjan). */
function circles(g: Map<string, { local: string[] }>): string[][] {
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of g.get(v)?.local ?? []) {
      if (!idx.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        comp.push(w)
      } while (w !== v)
      if (comp.length > 1 || (g.get(v)?.local ?? []).includes(v)) out.push(comp.map(p => relative(ROOT, p)).sort())
    }
  }
  for (const v of g.keys()) if (!idx.has(v)) visit(v)
  return out
}

const under = (dir: string) => (f: string) => relative(ROOT, f).startsWith(`${dir}/`)

/** Imports from files under `dir` that break `rule`, as "file -> import". */
function offenders(dir: string, rule: (target: { file?: string; pkg?: string }) => boolean, g: typeof graph = graph): string[] {
  const out: string[] = []
  for (const [f, { local, packages }] of g) {
    if (!under(dir)(f)) continue
    for (const t of local) if (rule({ file: relative(ROOT, t) })) out.push(`${relative(ROOT, f)} -> ${relative(ROOT, t)}`)
    for (const p of packages) if (rule({ pkg: p })) out.push(`${relative(ROOT, f)} -> ${p}`)
  }
  return out
}

const isElysia = (pkg?: string) => pkg !== undefined && (pkg === 'elysia' || pkg.startsWith('elysia/') || pkg.startsWith('@elysiajs/'))
const isIn = (file: string | undefined, ...dirs: string[]) => file !== undefined && dirs.some(d => file.startsWith(`${d}/`) || file === `${d}.ts`)

/** the HTTP areas: jobs, mail and the records they share with the modules stay below them */
const reachesModule = (t: { file?: string }) => isIn(t.file, 'src/modules')
/** the records are read and written by modules and jobs alike, so they import neither */
const recordsReachUp = (t: { file?: string; pkg?: string }) => isElysia(t.pkg) || isIn(t.file, 'src/modules', 'src/http', 'src/jobs')

describe('the import graph of src/', () => {
  test('is read from every source file and its imports resolve', () => {
    expect(graph.size).toBe(files.length)
    expect(graph.get(join(ROOT, 'src/app.ts'))!.local).toContain(join(ROOT, 'src/modules/simulate/index.ts'))
  })

  test('the reader sees static, re-exported, dynamic and type-only imports, not ones in comments', () => {
    const text = `import { a } from './a'\nimport type { B } from "./b"\nexport { c } from './c'\nconst d = await import('./d')\n// import { e } from './e'\n/* import { f } from './f' */\nimport './g'`
    expect(specifiersOf(text)).toEqual(['./a', './b', './c', './d', './g'])
  })

  test('has no circle', () => {
    expect(circles(graph)).toEqual([])
  })

  test('a circle would be found', () => {
    const a = { local: ['b'] }, b = { local: ['c'] }, c = { local: ['a'] }
    expect(circles(new Map([['a', a], ['b', b], ['c', c]]))).toHaveLength(1)
  })

  test('nothing under src/runs/ or src/engine/ imports Elysia or src/http/', () => {
    const rule = (t: { file?: string; pkg?: string }) => isElysia(t.pkg) || isIn(t.file, 'src/http')
    expect(offenders('src/runs', rule)).toEqual([])
    expect(offenders('src/engine', rule)).toEqual([])
  })

  test('the engine imports no layer above it, no database and no network client', () => {
    const rule = (t: { file?: string; pkg?: string }) =>
      isIn(t.file, 'src/runs', 'src/modules', 'src/jobs', 'src/http', 'src/db', 'src/app', 'src/deps', 'src/upstream', 'src/market-context') ||
      (t.pkg !== undefined && (t.pkg.startsWith('drizzle-orm') || t.pkg === 'bun:sqlite' || t.pkg === 'ccxt'))
    expect(offenders('src/engine', rule)).toEqual([])
  })

  test('the run pipeline does not reach up into the modules, the HTTP layer or the app', () => {
    const rule = (t: { file?: string }) => isIn(t.file, 'src/modules', 'src/http', 'src/app', 'src/deps')
    expect(offenders('src/runs', rule)).toEqual([])
  })

  test('nothing under src/jobs/, src/mail/ or src/records/ imports a module (src/modules/)', () => {
    expect(offenders('src/jobs', reachesModule)).toEqual([])
    expect(offenders('src/mail', reachesModule)).toEqual([])
    expect(offenders('src/records', reachesModule)).toEqual([])
  })

  test('the records import no Elysia, no src/http/ and no job', () => {
    expect(offenders('src/records', recordsReachUp)).toEqual([])
  })

  test('the jobs, mail and records rules read real imports, and an import they forbid would be found', () => {
    for (const dir of ['src/jobs', 'src/mail', 'src/records']) expect([...graph.keys()].filter(under(dir)).length).toBeGreaterThanOrEqual(2)
    expect(offenders('src/jobs', t => isIn(t.file, 'src/records'))).toContain('src/jobs/day-roots.ts -> src/records/merkle-leaves.ts')
    const fake = new Map([
      [join(ROOT, 'src/jobs/day-roots.ts'), { local: [join(ROOT, 'src/modules/trust/leaves.ts')], packages: [] }],
      [join(ROOT, 'src/mail/weekly.ts'), { local: [join(ROOT, 'src/modules/rankings/rank.ts')], packages: [] }],
      [join(ROOT, 'src/records/paper.ts'), { local: [join(ROOT, 'src/modules/trust/service.ts'), join(ROOT, 'src/http/errors.ts'), join(ROOT, 'src/jobs/scheduler.ts')], packages: ['elysia', 'drizzle-orm'] }],
    ])
    expect(offenders('src/jobs', reachesModule, fake)).toEqual(['src/jobs/day-roots.ts -> src/modules/trust/leaves.ts'])
    expect(offenders('src/mail', reachesModule, fake)).toEqual(['src/mail/weekly.ts -> src/modules/rankings/rank.ts'])
    expect(offenders('src/records', recordsReachUp, fake)).toEqual([
      'src/records/paper.ts -> src/modules/trust/service.ts',
      'src/records/paper.ts -> src/http/errors.ts',
      'src/records/paper.ts -> src/jobs/scheduler.ts',
      'src/records/paper.ts -> elysia',
    ])
  })

  test('the kit below the engine (time units and forms, sorted-series search, rounding) imports nothing', () => {
    const kit = ['src/time.ts', 'src/sorted-search.ts', 'src/round.ts'].map(f => join(ROOT, f))
    for (const f of kit) expect({ file: relative(ROOT, f), ...graph.get(f)! }).toEqual({ file: relative(ROOT, f), local: [], packages: [] })
  })

  test('module services use no Elysia (controllers and models do)', () => {
    const services = [...graph.keys()].filter(f => /^src\/modules\/[^/]+\/(.+-)?service\.ts$/.test(relative(ROOT, f)))
    expect(services.length).toBeGreaterThanOrEqual(6)
    for (const f of services) expect(graph.get(f)!.packages.filter(p => isElysia(p))).toEqual([])
  })
})
