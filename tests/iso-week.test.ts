import { describe, expect, test } from 'bun:test'
import { isoWeek, weekStartMs } from '../src/mail/iso-week'

describe('ISO weeks', () => {
  test('Monday starts the week; the week holding the first Thursday is week 1', () => {
    expect(isoWeek(Date.UTC(2026, 10, 23, 1))).toBe('2026-W48') // Monday
    expect(isoWeek(Date.UTC(2026, 10, 29, 23, 59))).toBe('2026-W48') // Sunday night
    expect(isoWeek(Date.UTC(2026, 10, 30))).toBe('2026-W49')
  })

  test('around the new year the week belongs to the year of its Thursday', () => {
    expect(isoWeek(Date.UTC(2020, 11, 31))).toBe('2020-W53') // 2020 had 53 weeks
    expect(isoWeek(Date.UTC(2021, 0, 3))).toBe('2020-W53')
    expect(isoWeek(Date.UTC(2021, 0, 4))).toBe('2021-W01')
    expect(isoWeek(Date.UTC(2024, 11, 30))).toBe('2025-W01') // a Monday in December, week 1 of the next year
    expect(isoWeek(Date.UTC(2027, 0, 1))).toBe('2026-W53')
  })

  test('weekStartMs is that Monday at 00:00 UTC', () => {
    expect(weekStartMs(Date.UTC(2026, 10, 25, 13))).toBe(Date.UTC(2026, 10, 23))
    expect(weekStartMs(Date.UTC(2026, 10, 23))).toBe(Date.UTC(2026, 10, 23))
    expect(weekStartMs(Date.UTC(2021, 0, 3, 23))).toBe(Date.UTC(2020, 11, 28))
  })
})
