import { describe, expect, test } from 'bun:test'
import { dayOfCivil, monthOfDay, yearMonthOfDay } from '../src/engine/calendar'
import { applyEntryFilters, type EntryFilters } from '../src/engine/filters'
import { windowIndices } from '../src/engine/date-window'
import { DAY_MS, HOUR_MS } from '../src/time'
import { barsOf, flat, maskOf } from './engine-fixtures'

const none: EntryFilters = { avoidHours: [], avoidMonths: null, minVolRegime: null, atrRatio: null }
const ones = (n: number) => new Uint8Array(n).fill(1)

describe('avoid_hours and avoid_months filter the entry bar', () => {
  // 1H bars from 2024-01-31 20:00 UTC: bar 3 (23:00) enters at bar 4, 2024-02-01 00:00
  const t0 = Date.UTC(2024, 0, 31, 20)
  const bars = barsOf(Array.from({ length: 8 }, () => flat(100)), HOUR_MS, t0)

  test("a signal is dropped when its entry bar's UTC hour is avoided", () => {
    const out = applyEntryFilters(ones(8), bars, { ...none, avoidHours: [0] })
    // only bar 3 enters at 00:00
    expect([...out]).toEqual([1, 1, 1, 0, 1, 1, 1, 1])
  })

  test("the signal bar's own hour does not matter", () => {
    const out = applyEntryFilters(ones(8), bars, { ...none, avoidHours: [23] })
    // bar 2 (22:00) enters at 23:00; bar 3 (23:00) enters at 00:00 and stays
    expect([...out]).toEqual([1, 1, 0, 1, 1, 1, 1, 1])
  })

  test("a signal is dropped when its entry bar's month is avoided", () => {
    expect([...applyEntryFilters(ones(8), bars, { ...none, avoidMonths: [2] })]).toEqual([1, 1, 1, 0, 0, 0, 0, 0])
    expect([...applyEntryFilters(ones(8), bars, { ...none, avoidMonths: [1] })]).toEqual([0, 0, 0, 1, 1, 1, 1, 1])
  })

  test('the input mask is left unchanged and cleared signals stay cleared', () => {
    const input = maskOf(8, 1, 5)
    const out = applyEntryFilters(input, bars, { ...none, avoidHours: [22] })
    expect([...out]).toEqual([...maskOf(8, 5)])
    expect([...input]).toEqual([...maskOf(8, 1, 5)])
  })

  test('the calendar arithmetic agrees with Date for every day from 1900 to 2100', () => {
    for (let day = -25_567; day < 47_500; day += 1) {
      const d = new Date(day * DAY_MS)
      const ym = yearMonthOfDay(day)
      if (ym !== d.getUTCFullYear() * 100 + d.getUTCMonth() + 1) throw new Error(`day ${day}: ${ym}`)
    }
    expect(monthOfDay(Math.floor(Date.UTC(2024, 1, 29) / DAY_MS))).toBe(2)
  })
})

describe('min_vol_regime', () => {
  const bars = barsOf(Array.from({ length: 5 }, () => flat(100)))

  test('uses the ATR ratio of the signal bar; a ratio below the minimum or unknown blocks the entry', () => {
    const atrRatio = Float64Array.from([Number.NaN, 0.8, 1.2, 1.0, 2])
    const out = applyEntryFilters(ones(5), bars, { ...none, minVolRegime: 1.0, atrRatio })
    expect([...out]).toEqual([0, 0, 1, 1, 1])
  })

  test('needs the ATR ratio column', () => {
    expect(() => applyEntryFilters(ones(5), bars, { ...none, minVolRegime: 1 })).toThrow()
  })
})

describe('date windows', () => {
  // 1H bars from 2024-01-01 00:00 for three days
  const bars = barsOf(Array.from({ length: 72 }, () => flat(100)))
  const day = (d: number) => Date.UTC(2024, 0, d)

  test('start and end days are inclusive UTC days of bar open times', () => {
    expect(windowIndices(bars, day(2), day(2))).toEqual({ fromIdx: 24, toIdx: 47 })
    expect(windowIndices(bars, null, day(1))).toEqual({ fromIdx: 0, toIdx: 23 })
    expect(windowIndices(bars, day(3), null)).toEqual({ fromIdx: 48, toIdx: 71 })
  })

  test('a window without bars is null', () => {
    expect(windowIndices(bars, day(5), day(6))).toBeNull()
  })
})

describe('calendar', () => {
  test('dayOfCivil inverts the day number of every first of month from 1900 to 2100', () => {
    for (let y = 1900; y <= 2100; y++) for (let m = 1; m <= 12; m++) expect(dayOfCivil(y, m, 1)).toBe(Date.UTC(y, m - 1, 1) / DAY_MS)
  })

  test('lookups in any order agree with Date (the month cache never leaks)', () => {
    let s = 3
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32)
    for (let k = 0; k < 20_000; k++) {
      const day = Math.floor(rnd() * 60_000) - 10_000
      const d = new Date(day * DAY_MS)
      expect(yearMonthOfDay(day)).toBe(d.getUTCFullYear() * 100 + d.getUTCMonth() + 1)
    }
  })
})
