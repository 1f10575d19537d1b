/**
 * One error route, thin controllers (docs/architecture.md "Layers"): a module's index.ts
 * calls its service and returns; it never sets a status, answers one itself or catches an
 * error. Services throw the domain errors of src/runs/errors.ts and src/http/errors.ts alone
 * maps them. And each of the shared pieces exists once: one NotFound, one Detail schema,
 * one no-cache helper.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { sourceFiles } from './helpers/fixtures'

const ROOT = resolve(import.meta.dir, '..')


/** code without comments, so a sentence about `try` or `status(` in one does not count */
const codeOf = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')

/** What a controller must not do, each with the pattern that finds it. */
const SIDE_DOORS: [string, RegExp][] = [
  ['status(', /\bstatus\(/],
  ['set.status', /\bset\s*\.\s*status\b/],
  ['try', /\btry\s*\{/],
]

/** The side doors in one controller's text, as `line: what`. */
export function sideDoors(text: string): string[] {
  return codeOf(text)
    .split('\n')
    .flatMap((line, i) => SIDE_DOORS.filter(([, re]) => re.test(line)).map(([what]) => `${i + 1}: ${what}`))
}

/** A controller that computes its answer instead of calling its service: a pass over a collection. */
const COMPUTES = /\.(map|filter|reduce|flatMap|sort)\(/

/** The lines of one controller's text that compute, as `line: code`. */
export function computations(text: string): string[] {
  return codeOf(text)
    .split('\n')
    .flatMap((line, i) => (COMPUTES.test(line) ? [`${i + 1}: ${line.trim()}`] : []))
}

const controllers = readdirSync(join(ROOT, 'src/modules'))
  .map(area => join(ROOT, 'src/modules', area, 'index.ts'))
  .filter(p => statSync(p, { throwIfNoEntry: false })?.isFile())
const sources = sourceFiles(join(ROOT, 'src')).filter(f => !relative(ROOT, f).startsWith('src/web/'))
const rel = (f: string) => relative(ROOT, f)

describe('thin controllers', () => {
  test('every area has a controller to scan', () => {
    expect(controllers.length).toBeGreaterThanOrEqual(20)
  })

  test('no src/modules/*/index.ts sets a status, answers with status() or catches an error', () => {
    const found = controllers.flatMap(f => sideDoors(readFileSync(f, 'utf8')).map(d => `${rel(f)}:${d}`))
    expect(found).toEqual([])
  })

  test('the scan finds each side door, and not the words in a comment or a Response option', () => {
    const controller = [
      "  .get('/a', ({ params, status }) => get(params.id) ?? status(404, { detail: 'no' }))",
      '  .post(\'/b\', ({ set }) => { set.status = 202; return {} })',
      '  .get(\'/c\', () => { try { return run() } catch { return null } })',
      '  // a comment may say try { } or status(404) or set.status',
      "  .get('/d', () => new Response(null, { status: 304 }), { detail: { summary: 'every strategy status (cached)' } })",
    ].join('\n')
    expect(sideDoors(controller)).toEqual(['1: status(', '2: set.status', '3: try'])
  })
})

describe('controllers call their service (docs/architecture.md "Layers": a controller never computes or shapes a body)', () => {
  test('no src/modules/*/index.ts maps, filters, reduces or sorts: that is its service\'s work', () => {
    const found = controllers.flatMap(f => computations(readFileSync(f, 'utf8')).map(d => `${rel(f)}:${d}`))
    expect(found).toEqual([])
  })

  test('the scan finds a controller that lists and shapes its answer, and not a comment about it', () => {
    const controller = [
      "  .get('/coins', ({ query }) => deps.universe.all().filter(c => c.ok).map(c => ({ symbol: c.symbol })))",
      "  .get('/coins/2', ({ query }) => listCoins(deps, query))",
      '  // the service does .map( and .filter( for it',
    ].join('\n')
    expect(computations(controller).map(c => c.slice(0, 2))).toEqual(['1:'])
  })
})

describe('one of each', () => {
  test('one NotFound: the domain error of src/runs/errors.ts; no other "not found" error class', () => {
    const classes = sources.flatMap(f => [...codeOf(readFileSync(f, 'utf8')).matchAll(/class (\w*NotFound\w*)\b/g)].map(m => `${rel(f)}: ${m[1]}`))
    expect(classes).toEqual(['src/runs/errors.ts: NotFound'])
  })

  test('one Detail schema: `{detail: string}` is declared in src/model/shared.ts only', () => {
    // the one-field body only: a body with more beside `detail` (429's limit, 400's figures) is a schema of its own
    const declared = sources.filter(f => /t\.Object\(\s*\{\s*detail\s*:\s*t\.(String|Unknown)\([^)]*\)\s*,?\s*\}/.test(codeOf(readFileSync(f, 'utf8')))).map(rel)
    expect(declared).toEqual(['src/model/shared.ts'])
  })

  test("one no-cache helper: the request's Cache-Control is read in src/http/cache-control.ts only", () => {
    const readers = sources.filter(f => /no-cache\|no-store/.test(codeOf(readFileSync(f, 'utf8')))).map(rel)
    expect(readers).toEqual(['src/http/cache-control.ts'])
  })
})
