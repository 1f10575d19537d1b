/**
 * The house's one-way flow, checked on the import graph of src/ and workers/ (every
 * static import, re-export and dynamic import, type-only ones included): no module
 * imports itself through a circle, and the lower layers never reach up.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { sourceFiles } from './helpers/fixtures'

const ROOT = resolve(import.meta.dir, '..')


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

/** the HTTP areas: jobs, live steps, mail and the records they share with the modules stay below them */
const reachesModule = (t: { file?: string }) => isIn(t.file, 'src/modules')
/** the records are read and written by modules, jobs and live steps alike, so they import none of them */
const recordsReachUp = (t: { file?: string; pkg?: string }) => isElysia(t.pkg) || isIn(t.file, 'src/modules', 'src/http', 'src/jobs', 'src/live')
/** a live step is called by its job, never the reverse, and serves no route */
const liveReachesUp = (t: { file?: string; pkg?: string }) => isElysia(t.pkg) || isIn(t.file, 'src/modules', 'src/http', 'src/jobs')
/** the push area (webhooks, Telegram, Discord) is driven by its job and the admin module: it imports neither, nor Elysia or src/http/ */
const pushReachesUp = (t: { file?: string; pkg?: string }) => isElysia(t.pkg) || isIn(t.file, 'src/modules', 'src/http', 'src/jobs', 'src/live')
/** a module reads what jobs and live steps publish through src/records/, never through them */
const moduleReachesJob = (t: { file?: string }) => isIn(t.file, 'src/jobs', 'src/live')

/** The area of a file under src/modules/ (`src/modules/<area>/...`), or null. */
const areaOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null

/** Imports from one module (src/modules/<area>/) into another, as "file -> import". */
function crossModule(g: typeof graph = graph): string[] {
  const out: string[] = []
  for (const [f, { local }] of g) {
    const from = areaOf(relative(ROOT, f))
    if (from === null) continue
    for (const t of local) {
      const to = relative(ROOT, t)
      if (to.startsWith('src/modules/') && areaOf(to) !== from) out.push(`${relative(ROOT, f)} -> ${to}`)
    }
  }
  return out
}

/**
 * One road to the workers: the executor, the worker pool and its task queue are reached only
 * through the run service's transport (src/runs/transport.ts), and the transport only by the
 * run pipeline and the process roots that build one for their RunService and close it.
 */
const RAW_WORKERS = ['src/runs/compute/executor.ts', 'src/runs/compute/pool.ts', 'src/runs/compute/task-queue.ts']
const TRANSPORT = 'src/runs/transport.ts'
const TRANSPORT_ROOTS = ['src/main.ts', 'src/compose.ts', 'src/jobs/cli.ts']
/** the queue's two ends: the API's transport (built by the server's root) and the worker host's loop (the command line's `worker`, src/commands.ts) */
const QUEUE_ENDS: Record<string, string[]> = { 'src/runs/queue-transport.ts': ['src/main.ts'], 'src/runs/queue-worker.ts': ['src/commands.ts'] }

/** Imports outside src/runs/ that open a second road to the workers, as "file -> import". */
function secondRoads(g: typeof graph = graph): string[] {
  const out: string[] = []
  for (const [f, { local }] of g) {
    const from = relative(ROOT, f)
    if (under('src/runs')(f)) continue
    for (const t of local) {
      const to = relative(ROOT, t)
      if (RAW_WORKERS.includes(to) || (to === TRANSPORT && !TRANSPORT_ROOTS.includes(from)) || (to in QUEUE_ENDS && !QUEUE_ENDS[to].includes(from))) out.push(`${from} -> ${to}`)
    }
  }
  return out
}

/** Whether a root's code submits a task itself (comments dropped): it may build and close its transport, nothing more. */
const submitsTasks = (text: string) => /\.submit\s*\(/.test(text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, ''))

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

  test('nothing under src/jobs/, src/live/, src/mail/, src/records/ or the other areas below the modules imports a module (src/modules/)', () => {
    for (const dir of ['src/jobs', 'src/live', 'src/mail', 'src/push', 'src/records', 'src/market-context', 'src/upstream', 'src/cards', 'src/bot-generator', 'src/web', 'src/model'])
      expect(offenders(dir, reachesModule)).toEqual([])
  })

  test('the records import no Elysia, no src/http/, no job and no live step', () => {
    expect(offenders('src/records', recordsReachUp)).toEqual([])
  })

  test('the live steps import no job (the scheduler included), no module, no Elysia and no src/http/', () => {
    expect(offenders('src/live', liveReachesUp)).toEqual([])
  })

  test('the push area imports no job, live step, module, Elysia or src/http/; a file that did would be found', () => {
    expect([...graph.keys()].filter(under('src/push')).length).toBeGreaterThanOrEqual(5)
    expect(offenders('src/push', pushReachesUp)).toEqual([])
    expect(offenders('src/jobs', t => isIn(t.file, 'src/push'))).toContain('src/jobs/push-delivery.ts -> src/push/pusher.ts')
    const fake = new Map([
      [join(ROOT, 'src/push/pusher.ts'), { local: [join(ROOT, 'src/jobs/scheduler.ts'), join(ROOT, 'src/modules/webhooks/service.ts'), join(ROOT, 'src/http/errors.ts'), join(ROOT, 'src/records/events.ts')], packages: ['elysia', 'standardwebhooks'] }],
    ])
    expect(offenders('src/push', pushReachesUp, fake)).toEqual(['src/push/pusher.ts -> src/jobs/scheduler.ts', 'src/push/pusher.ts -> src/modules/webhooks/service.ts', 'src/push/pusher.ts -> src/http/errors.ts', 'src/push/pusher.ts -> elysia'])
  })

  test('a module imports no other module', () => {
    expect(crossModule()).toEqual([])
  })

  test('no module imports a job or a live step', () => {
    expect(offenders('src/modules', moduleReachesJob)).toEqual([])
  })

  test('the jobs, live, mail and records rules read real imports, and an import they forbid would be found', () => {
    for (const dir of ['src/jobs', 'src/live', 'src/mail', 'src/records']) expect([...graph.keys()].filter(under(dir)).length).toBeGreaterThanOrEqual(2)
    expect(offenders('src/live', t => isIn(t.file, 'src/records'))).toContain('src/live/day-roots.ts -> src/records/merkle-leaves.ts')
    expect(offenders('src/jobs', t => isIn(t.file, 'src/live'))).toContain('src/jobs/live-records.ts -> src/live/day-roots.ts')
    const fake = new Map([
      [join(ROOT, 'src/jobs/live-records.ts'), { local: [join(ROOT, 'src/modules/trust/leaves.ts')], packages: [] }],
      [join(ROOT, 'src/live/day-roots.ts'), { local: [join(ROOT, 'src/jobs/scheduler.ts'), join(ROOT, 'src/modules/trust/leaves.ts'), join(ROOT, 'src/records/merkle-leaves.ts')], packages: [] }],
      [join(ROOT, 'src/mail/weekly.ts'), { local: [join(ROOT, 'src/modules/rankings/rank.ts')], packages: [] }],
      [join(ROOT, 'src/records/paper.ts'), { local: [join(ROOT, 'src/modules/trust/service.ts'), join(ROOT, 'src/http/errors.ts'), join(ROOT, 'src/jobs/scheduler.ts'), join(ROOT, 'src/live/paper-trader.ts')], packages: ['elysia', 'drizzle-orm'] }],
    ])
    expect(offenders('src/jobs', reachesModule, fake)).toEqual(['src/jobs/live-records.ts -> src/modules/trust/leaves.ts'])
    expect(offenders('src/live', reachesModule, fake)).toEqual(['src/live/day-roots.ts -> src/modules/trust/leaves.ts'])
    expect(offenders('src/live', liveReachesUp, fake)).toEqual(['src/live/day-roots.ts -> src/jobs/scheduler.ts', 'src/live/day-roots.ts -> src/modules/trust/leaves.ts'])
    expect(offenders('src/mail', reachesModule, fake)).toEqual(['src/mail/weekly.ts -> src/modules/rankings/rank.ts'])
    expect(offenders('src/records', recordsReachUp, fake)).toEqual([
      'src/records/paper.ts -> src/modules/trust/service.ts',
      'src/records/paper.ts -> src/http/errors.ts',
      'src/records/paper.ts -> src/jobs/scheduler.ts',
      'src/records/paper.ts -> src/live/paper-trader.ts',
      'src/records/paper.ts -> elysia',
    ])
  })

  test('the module rules read real imports, and a module importing another module, a job or a live step would be found', () => {
    const areas = new Set([...graph.keys()].map(f => areaOf(relative(ROOT, f))).filter(a => a !== null))
    expect(areas.size).toBeGreaterThanOrEqual(10)
    // a module's files import each other and the shared model below every module: neither is a crossing
    expect(offenders('src/modules', t => isIn(t.file, 'src/modules/simulate'))).toContain('src/modules/simulate/index.ts -> src/modules/simulate/model.ts')
    expect(offenders('src/modules', t => t.file === 'src/model/shared.ts')).toContain('src/modules/simulate/model.ts -> src/model/shared.ts')
    const fake = new Map([
      [join(ROOT, 'src/modules/research/research-spec.ts'), { local: [join(ROOT, 'src/modules/research/model.ts'), join(ROOT, 'src/modules/backtest/service.ts'), join(ROOT, 'src/model/shared.ts')], packages: [] }],
      [join(ROOT, 'src/modules/paper/service.ts'), { local: [join(ROOT, 'src/live/paper-trader.ts'), join(ROOT, 'src/jobs/registry.ts'), join(ROOT, 'src/records/paper.ts')], packages: [] }],
      [join(ROOT, 'src/modules/macro/model.ts'), { local: [join(ROOT, 'src/modules/market/model.ts')], packages: ['elysia'] }],
      [join(ROOT, 'src/app.ts'), { local: [join(ROOT, 'src/modules/simulate/index.ts')], packages: [] }],
    ])
    expect(crossModule(fake)).toEqual(['src/modules/research/research-spec.ts -> src/modules/backtest/service.ts', 'src/modules/macro/model.ts -> src/modules/market/model.ts'])
    expect(offenders('src/modules', moduleReachesJob, fake)).toEqual(['src/modules/paper/service.ts -> src/live/paper-trader.ts', 'src/modules/paper/service.ts -> src/jobs/registry.ts'])
  })

  test('the kit below the engine (time units and forms, sorted-series search, rounding) imports nothing', () => {
    const kit = ['src/time.ts', 'src/sorted-search.ts', 'src/round.ts', 'src/sse-framing.ts'].map(f => join(ROOT, f))
    for (const f of kit) expect({ file: relative(ROOT, f), ...graph.get(f)! }).toEqual({ file: relative(ROOT, f), local: [], packages: [] })
  })

  test('one road to the workers: nothing outside src/runs/ imports the executor, the pool or the task queue, and only the process roots import the transport (they build and close it, never submit)', () => {
    expect(secondRoads()).toEqual([])
    // the queue's ends: only the server's root builds the queue transport, only the command line (src/commands.ts) starts a queue worker
    const fake = new Map([
      [join(ROOT, 'src/main.ts'), { local: [join(ROOT, 'src/runs/queue-transport.ts')], packages: [] }],
      [join(ROOT, 'src/commands.ts'), { local: [join(ROOT, 'src/runs/queue-worker.ts')], packages: [] }],
      [join(ROOT, 'src/modules/simulate/service.ts'), { local: [join(ROOT, 'src/runs/queue-transport.ts'), join(ROOT, 'src/runs/queue-worker.ts')], packages: [] }],
    ])
    expect(secondRoads(fake)).toEqual(['src/modules/simulate/service.ts -> src/runs/queue-transport.ts', 'src/modules/simulate/service.ts -> src/runs/queue-worker.ts'])
    for (const root of TRANSPORT_ROOTS) expect(submitsTasks(readFileSync(join(ROOT, root), 'utf8'))).toBe(false)
  })

  test('the one-road rule reads real imports, and a second road would be found', () => {
    const real = (from: string) => graph.get(join(ROOT, from))!.local.map(t => relative(ROOT, t))
    // the run service is the transport's caller, the transport wraps the executor, the server builds one
    expect(real('src/runs/service.ts')).toContain(TRANSPORT)
    expect(real(TRANSPORT)).toContain('src/runs/compute/executor.ts')
    expect(real('src/main.ts')).toContain(TRANSPORT)
    const fake = new Map([
      [join(ROOT, 'src/modules/research/validate-service.ts'), { local: [join(ROOT, 'src/runs/compute/executor.ts'), join(ROOT, 'src/runs/service.ts')], packages: [] }],
      [join(ROOT, 'src/jobs/rankings.ts'), { local: [join(ROOT, TRANSPORT), join(ROOT, 'src/runs/compute/nested-runs.ts')], packages: [] }],
      [join(ROOT, 'src/live/signal-scan.ts'), { local: [join(ROOT, 'src/runs/compute/pool.ts'), join(ROOT, 'src/runs/compute/task-queue.ts')], packages: [] }],
      [join(ROOT, 'src/compose.ts'), { local: [join(ROOT, 'src/runs/compute/executor.ts'), join(ROOT, TRANSPORT)], packages: [] }],
      [join(ROOT, 'src/main.ts'), { local: [join(ROOT, TRANSPORT)], packages: [] }],
      [join(ROOT, 'src/runs/service.ts'), { local: [join(ROOT, TRANSPORT), join(ROOT, 'src/runs/compute/executor.ts')], packages: [] }],
    ])
    expect(secondRoads(fake)).toEqual([
      'src/modules/research/validate-service.ts -> src/runs/compute/executor.ts',
      'src/jobs/rankings.ts -> src/runs/transport.ts',
      'src/live/signal-scan.ts -> src/runs/compute/pool.ts',
      'src/live/signal-scan.ts -> src/runs/compute/task-queue.ts',
      'src/compose.ts -> src/runs/compute/executor.ts',
    ])
    expect(submitsTasks(`const t = workerPoolTransport(store, 2, 64)\nawait t.submit('coinTrades', payload, { priority: 'interactive' })`)).toBe(true)
    expect(submitsTasks(`// t.submit('coinTrades', …) is the run service's\nconst t = workerPoolTransport(store, 2, 64)\nawait t.close()`)).toBe(false)
  })

  test('module services use no Elysia (controllers and models do)', () => {
    const services = [...graph.keys()].filter(f => /^src\/modules\/[^/]+\/(.+-)?service\.ts$/.test(relative(ROOT, f)))
    expect(services.length).toBeGreaterThanOrEqual(6)
    for (const f of services) expect(graph.get(f)!.packages.filter(p => isElysia(p))).toEqual([])
  })
})
