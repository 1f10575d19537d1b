import { describe, expect, test } from 'bun:test'
import {
  RELIABILITY_THRESHOLDS as TH,
  reliabilityChecks,
  reliabilityInput,
  reliabilityWarning,
  topCoinSharePct,
  type ReliabilityInput,
} from '../src/engine/reliability'
import { tradeTableOf } from '../src/engine/trade-table'
import type { Trade } from '../src/engine/types'
import { DAY_MS } from '../src/time'

const healthy: ReliabilityInput = { totalTrades: 120, maxDrawdownPct: 20, spanDays: 365, leverage: 3, coinReturnsPct: [10, 12, -4, 8] }
const verdicts = (input: ReliabilityInput) => Object.fromEntries(reliabilityChecks(input).map((c) => [c.axis_id, c.verdict]))

describe('the five axes', () => {
  test('a healthy result passes every axis and gives no warning', () => {
    const checks = reliabilityChecks(healthy)
    expect(checks.map((c) => c.axis_id)).toEqual(['trades', 'ruin', 'sample', 'leverage', 'diversification'])
    expect(checks.every((c) => c.verdict === 'pass' && c.message === null)).toBe(true)
    expect(reliabilityWarning(checks)).toBeNull()
  })

  test('every check fills value and threshold', () => {
    const byAxis = Object.fromEntries(reliabilityChecks(healthy).map((c) => [c.axis_id, [c.value, c.threshold]]))
    expect(byAxis).toEqual({
      trades: [120, TH.minTrades],
      ruin: [20, TH.maxDrawdownPct],
      sample: [365, TH.minSpanDays],
      leverage: [3, TH.maxLeverage],
      diversification: [(12 / 34) * 100, TH.maxTopCoinSharePct],
    })
  })

  test('fewer than 30 trades fails `trades`', () => {
    expect(verdicts({ ...healthy, totalTrades: 29 }).trades).toBe('fail')
    expect(verdicts({ ...healthy, totalTrades: 30 }).trades).toBe('pass')
  })

  test('a drawdown of 50 % or more fails `ruin`', () => {
    expect(verdicts({ ...healthy, maxDrawdownPct: 50 }).ruin).toBe('fail')
    expect(verdicts({ ...healthy, maxDrawdownPct: 49.9 }).ruin).toBe('pass')
  })

  test('a ruined portfolio fails `ruin` whatever its drawdown, naming the day its equity reached zero', () => {
    const checks = reliabilityChecks({ ...healthy, maxDrawdownPct: 20, ruinedAtMs: Date.UTC(2024, 2, 5, 13) })
    const ruin = checks.find((c) => c.axis_id === 'ruin')!
    expect(ruin.verdict).toBe('fail')
    expect(ruin.message).toContain('2024-03-05')
    expect(reliabilityWarning(checks)).toContain('ruined on 2024-03-05')
    expect(verdicts({ ...healthy, ruinedAtMs: null }).ruin).toBe('pass')
  })

  test('trades spanning fewer than 90 days fail `sample`', () => {
    expect(verdicts({ ...healthy, spanDays: 89.5 }).sample).toBe('fail')
    expect(verdicts({ ...healthy, spanDays: 90 }).sample).toBe('pass')
  })

  test('leverage above 10x fails `leverage`', () => {
    expect(verdicts({ ...healthy, leverage: 11 }).leverage).toBe('fail')
    expect(verdicts({ ...healthy, leverage: 10 }).leverage).toBe('pass')
  })

  test('one coin carrying more than half of the absolute P&L fails `diversification`', () => {
    expect(verdicts({ ...healthy, coinReturnsPct: [60, -10, 20] }).diversification).toBe('fail')
    expect(verdicts({ ...healthy, coinReturnsPct: [50] }).diversification).toBe('fail')
    expect(topCoinSharePct([30, -30, 40])).toBe(40)
    expect(topCoinSharePct([0, 0])).toBe(0)
  })

  test('the warning names every failed axis', () => {
    const w = reliabilityWarning(reliabilityChecks({ ...healthy, totalTrades: 12, leverage: 20 }))
    expect(w).toContain('12 trades')
    expect(w).toContain('leverage 20x')
    expect(w).not.toContain('drawdown')
  })
})

describe('a result with zero trades', () => {
  const checks = reliabilityChecks({ totalTrades: 0, maxDrawdownPct: 0, spanDays: 0, leverage: 50, coinReturnsPct: [] })

  test('evaluates only `trades` and marks the other four not_evaluated', () => {
    expect(checks.map((c) => [c.axis_id, c.verdict])).toEqual([
      ['trades', 'fail'],
      ['ruin', 'not_evaluated'],
      ['sample', 'not_evaluated'],
      ['leverage', 'not_evaluated'],
      ['diversification', 'not_evaluated'],
    ])
    expect(checks.slice(1).every((c) => c.value === null && c.threshold !== null)).toBe(true)
  })

  test('not_evaluated is not a pass: the warning is still given', () => {
    expect(reliabilityWarning(checks)).not.toBeNull()
  })
})

describe('the input from the trades', () => {
  test('span from the first entry to the last exit, P&L summed per coin', () => {
    const t = (symbol: string, entryDay: number, exitDay: number, pnlPct: number) =>
      ({ symbol, entryTimeMs: entryDay * DAY_MS, exitTimeMs: exitDay * DAY_MS, pnlPct }) as Trade
    // C is a coin of the run without trades: it carries no share of the P&L
    const input = reliabilityInput(tradeTableOf([t('A', 10, 12, 5), t('B', 11, 40, -3), t('A', 30, 31, 2)], ['C']), 12, 5)
    expect(input).toEqual({ totalTrades: 3, maxDrawdownPct: 12, spanDays: 30, leverage: 5, coinReturnsPct: [7, -3], ruinedAtMs: null })
    expect(reliabilityInput(tradeTableOf([]), 12, 5).spanDays).toBe(0)
  })
})
