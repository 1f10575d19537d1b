/** The small kit below the engine: time units and forms, the sorted-series search, the rounding. */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { roundTo } from '../src/round'
import { lowerBound, upperBound } from '../src/sorted-search'
import { compactDay, DAY_MS, HOUR_MS, isDay, isoDay, isoInstant, isIsoInstant, isoNoZone, isoRecordInstant, parseCompactDay, parseDay } from '../src/time'
import { sourceFiles } from './helpers/fixtures'

describe('src/time.ts', () => {
  test("isoDay and isoInstant write what Date's toISOString writes, over Date's whole range", () => {
    const byDate = {
      day: (ms: number) => new Date(ms).toISOString().slice(0, 10),
      instant: (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z',
    }
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -8.64e15, max: 8.64e15 }), fc.integer({ min: Date.UTC(1960, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.double({ min: -1e13, max: 4e12, noNaN: true })), ms => {
        // twice: the second from the days already written
        for (let k = 0; k < 2; k++) {
          expect(isoDay(ms)).toBe(byDate.day(ms))
          expect(isoInstant(ms)).toBe(byDate.instant(ms))
        }
      }),
      { numRuns: 20_000 },
    )
    for (const bad of [NaN, Infinity, 8.64e15 + 1000]) {
      expect(() => isoDay(bad)).toThrow(RangeError)
      expect(() => isoInstant(bad)).toThrow(RangeError)
    }
  })

  test('the units', () => {
    expect(HOUR_MS).toBe(60 * 60 * 1000)
    expect(DAY_MS).toBe(24 * HOUR_MS)
  })

  test('an instant is written ISO 8601 UTC with Z and whole seconds; a fraction is dropped, never rounded up', () => {
    expect(isoInstant(Date.UTC(2026, 2, 15))).toBe('2026-03-15T00:00:00Z')
    expect(isoInstant(Date.UTC(2026, 2, 15, 23, 59, 59, 999))).toBe('2026-03-15T23:59:59Z')
    expect(isoInstant(Date.UTC(1969, 11, 31, 23, 59, 59, 500))).toBe('1969-12-31T23:59:59Z')
    expect(isoNoZone(Date.UTC(2026, 2, 15, 1, 0, 0, 250))).toBe('2026-03-15T01:00:00')
  })

  test('records sealed as leaves keep their form: milliseconds only when not zero', () => {
    expect(isoRecordInstant(Date.UTC(2026, 2, 15))).toBe('2026-03-15T00:00:00Z')
    expect(isoRecordInstant(Date.UTC(2026, 2, 15, 0, 0, 0, 7))).toBe('2026-03-15T00:00:00.007Z')
  })

  test('days', () => {
    expect(isoDay(Date.UTC(2026, 1, 28, 23))).toBe('2026-02-28')
    expect(compactDay(Date.UTC(2026, 1, 28, 23))).toBe('20260228')
  })

  test('parseDay takes only YYYY-MM-DD of a real calendar day', () => {
    expect(parseDay('2024-02-29')).toBe(Date.UTC(2024, 1, 29))
    for (const bad of ['2023-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-05', '20260105', '2026-01-05T00:00:00Z', ' 2026-01-05', '', 'yesterday'])
      expect(parseDay(bad)).toBeNull()
  })

  /** Strings near the written forms: each character of a day or instant replaced, dropped or doubled, and some by hand. */
  const nearMisses = (seeds: string[]) => {
    const out = new Set<string>(['', 'yesterday', '0099-12-31', '0100-01-01', '9999-12-31', '2024-02-29', '2100-02-29', '2000-02-29', '2026-04-31', '2026-12-31T23:59:59Z', '2026-12-31T24:00:00Z', '2026-12-31T23:60:00Z', '2026-12-31T23:59:60Z', '2026-12-31t23:59:59z', '2026-12-31T23:59:59.000Z', '2026-12-31T23:59:59+00:00', '２０２６-01-01', '2026-01-01\n', '2026-01-01T00:00:00Z\n'])
    for (const seed of seeds)
      for (let i = 0; i < seed.length; i++) {
        out.add(seed.slice(0, i) + seed.slice(i + 1))
        out.add(seed.slice(0, i) + seed[i] + seed.slice(i))
        for (const c of ['0', '1', '2', '3', '5', '9', '-', ':', 'T', 'Z', ' ', '/', 'a', '\u0660']) out.add(seed.slice(0, i) + c + seed.slice(i + 1))
      }
    return [...out]
  }

  test('isDay is parseDay(s) !== null', () => {
    const days = nearMisses(['2024-02-29', '2026-12-31', '2025-02-28', '1999-09-09'])
    for (const s of days) expect([s, isDay(s)]).toEqual([s, parseDay(s) !== null])
    expect(days.filter(isDay).length).toBeGreaterThan(20)
  })

  test("isIsoInstant takes exactly isoInstant's form of a real day and time", () => {
    for (let ms = Date.UTC(1970, 0, 1); ms < Date.UTC(2101, 0, 1); ms += 7919 * 60_000 + 13_000) expect(isIsoInstant(isoInstant(ms))).toBe(true)
    for (const s of nearMisses(['2024-02-29T23:59:59Z', '2026-01-01T00:00:00Z', '2025-07-31T12:30:45Z'])) {
      // its form, and an instant that writes back as the same text: a real day and time
      const ms = Date.parse(s)
      const expected = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(s) && parseDay(s.slice(0, 10)) !== null && Number.isFinite(ms) && isoInstant(ms) === s
      expect([s, isIsoInstant(s)]).toEqual([s, expected])
    }
  })

  test('parseCompactDay takes only YYYYMMDD of a real calendar day', () => {
    expect(parseCompactDay('20240229')).toBe(Date.UTC(2024, 1, 29))
    for (const bad of ['20230229', '20261301', '2026-01-05', '2026015', '202601055']) expect(parseCompactDay(bad)).toBeNull()
  })
})

describe('src/sorted-search.ts', () => {
  const a = new Float64Array([1, 3, 3, 3, 7, 9, 0, 0]) // filled part: the first 6

  test('lowerBound: the first index with a value >= x', () => {
    expect([0, 1, 2, 3, 4, 8, 9, 10].map(x => lowerBound(a, x, 6))).toEqual([0, 0, 1, 1, 4, 5, 5, 6])
  })

  test('upperBound: the first index with a value > x (minus one: the last at or before x)', () => {
    expect([0, 1, 2, 3, 4, 8, 9, 10].map(x => upperBound(a, x, 6))).toEqual([0, 1, 1, 4, 4, 5, 6, 6])
  })

  test('from starts the search there: the stretch [from, n) searched as if it were the whole series, offset by from', () => {
    expect([0, 1, 2, 3, 4, 8, 9, 10].map(x => lowerBound(a, x, 6, 2))).toEqual([2, 2, 2, 2, 4, 5, 5, 6])
    expect([0, 1, 2, 3, 4, 8, 9, 10].map(x => upperBound(a, x, 6, 2))).toEqual([2, 2, 2, 4, 4, 5, 6, 6])
    for (const x of [0, 3, 5, 9, 10]) expect(upperBound(a, x, 5, 1)).toBe(1 + upperBound(a.subarray(1, 5), x))
  })

  test('n defaults to the whole series; plain arrays work too', () => {
    expect(upperBound([10, 20, 30], 25)).toBe(2)
    expect(lowerBound([10, 20, 30], 31)).toBe(3)
    expect(lowerBound([], 1)).toBe(0)
  })
})

describe('src/round.ts', () => {
  test('roundTo gives what Math.round on the scaled value gives', () => {
    expect(roundTo(1.23456, 2)).toBe(1.23)
    expect(roundTo(1.235, 2)).toBe(Math.round(1.235 * 100) / 100)
    expect(roundTo(-2.5, 0)).toBe(-2)
    expect(roundTo(0.000123456, 6)).toBe(0.000123)
  })
})

describe('the kit has no copies left in src/ or web/', () => {
  const ROOT = resolve(import.meta.dir, '..')
  const KIT = ['src/time.ts', 'src/round.ts', 'src/sorted-search.ts']
  /** what a copy of a kit piece looks like, each with the pattern that finds it */
  const COPIES: [string, RegExp][] = [
    ['a day or instant cut from toISOString (isoDay, isoInstant)', /toISOString\(\)\.slice\(0, ?(10|19)\)/],
    ['a literal hour or day in ms (HOUR_MS, DAY_MS)', /\b(86_?400_?000|3_?600_?000)\b/],
    ['a rounding to decimals by hand (roundTo)', /Math\.round\(([^()]|\(([^()]|\([^()]*\))*\))*[*/] *(10|100|1000|10_?000|1e\d+)\) *\/ *(10|100|1000|10_?000|1e\d+)\b/],
    ['a calendar check by hand (parseDay, parseCompactDay)', /% *400\b|\[31, *(28|29), *31\b/],
    ['a binary search by hand (lowerBound, upperBound)', /\(lo \+ hi\) *(>>>|>>) *1|Math\.floor\(\(lo \+ hi\) *\/ *2\)/],
  ]
  const codeOf = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  const copiesIn = (text: string) => codeOf(text).split('\n').flatMap((line, i) => COPIES.filter(([, re]) => re.test(line)).map(([what]) => `${i + 1}: ${what}`))

  test('the scan finds each kind of copy, and not one in a comment', () => {
    const text = [
      'const day = new Date(ms).toISOString().slice(0, 10)',
      'const DAY = 86_400_000',
      'const r2 = (x: number) => Math.round(x * 100) / 100',
      '  const mid = (lo + hi) >>> 1',
      '// a comment may say 3_600_000 or toISOString().slice(0, 10)',
      'const s = Math.round((clock.now() - start) / 10) / 100',
      'const days = Math.round((n * (100 - pct)) / 100)',
      'const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]',
    ].join('\n')
    expect(copiesIn(text).map(c => c.slice(0, 2))).toEqual(['1:', '2:', '3:', '4:', '6:', '8:'])
  })

  test('no file but the kit writes one of its pieces again', () => {
    const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'web'))].filter(f => !KIT.includes(relative(ROOT, f)))
    expect(files.length).toBeGreaterThan(100)
    const found = files.flatMap(f => copiesIn(readFileSync(f, 'utf8')).map(c => `${relative(ROOT, f)}:${c}`))
    expect(found).toEqual([])
  })
})
