/**
 * Runs over nested coin groups (the daily rankings' top30 ⊂ top50 ⊂ top100, and BTCUSDT
 * among them), each coin simulated once. With one position per coin a coin's trades depend
 * on that coin alone, so a group's run is booked from its coins' rows of the union's
 * table: the same rows, in the same order and with the same marks, that a run over the
 * group alone produces (runWholeRuns), and so the same metrics to the last digit (the
 * rankings tests re-run rows through POST /simulate).
 */
import { book, daySpan, markOver } from '../../engine/run'
import { membershipsOf } from '../../engine/tradable-windows'
import { selectRows, type TradeTable } from '../../engine/trade-table'
import { portfolioOptionsOf, type RunSpec } from '../spec'
import { runCoinTrades, type CoinOutcome, type CoinRunMemo, type RunMetricsResult } from './coin-tasks'
import type { TaskContext } from './context'

export interface NestedRunsPayload {
  /** one spec per configuration; its coins are `symbols`, its groups' runs differ only in coins */
  specs: RunSpec[]
  /** the union of the groups' coins */
  symbols: string[]
  /** each group's coins as ascending indices into `symbols` (the universe order of its own run) */
  groups: number[][]
  /**
   * a point-in-time universe (one group over all of `symbols`: point-in-time groups do not
   * nest in one order): membership intervals, delisted coins and the portfolio's coin count
   * (CoinTradesPayload, WholeRunsPayload)
   */
  tradable?: Record<string, number[]>
  delisted?: string[]
  coinCount?: number
  /**
   * groups that do not nest in one order (the rankings' point-in-time groups, rules v3):
   * each with its own coins, membership intervals and coin count; `symbols` and `groups`
   * are then unused. A coin with the same membership in several groups is simulated once.
   */
  ownGroups?: { symbols: string[]; tradable?: Record<string, number[]>; delisted?: string[]; coinCount: number }[]
}

/** A group's part of the union's trades, its coins re-indexed 0..k−1 in the group's order. */
export function groupTable(trades: TradeTable, symbols: readonly string[], group: readonly number[]): TradeTable {
  const pos = new Int32Array(symbols.length).fill(-1)
  group.forEach((c, k) => (pos[c] = k))
  const rows: number[] = []
  for (let i = 0; i < trades.n; i++) if (pos[trades.coin[i]] >= 0) rows.push(i)
  const sub = selectRows(trades, Int32Array.from(rows))
  for (let i = 0; i < sub.n; i++) sub.coin[i] = pos[sub.coin[i]]
  return { ...sub, symbols: group.map(c => symbols[c]) }
}

/** For each spec, the metrics of each group's run (results[spec][group]). */
export function runNestedRuns(ctx: TaskContext, payload: NestedRunsPayload): RunMetricsResult[][] {
  if (payload.ownGroups) {
    const groups = payload.ownGroups
    const memberships = groups.map(g => g.tradable && membershipsOf(g.symbols, g.tradable))
    return payload.specs.map(spec => {
      const memo: CoinRunMemo = new Map()
      return groups.map((g, k) => {
        const { coins, trades } = runCoinTrades(ctx, { spec, symbols: g.symbols, memberships: memberships[k], delisted: g.delisted, ruleTrades: false }, memo)
        const span = daySpan(coins)
        const { metrics, portfolio } = book(trades, portfolioOptionsOf(spec, g.coinCount), markOver(span, s => ctx.view.bars(s)))
        return { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
      })
    })
  }
  const memberships = payload.tradable && membershipsOf(payload.symbols, payload.tradable)
  return payload.specs.map(spec => {
    const { coins, trades } = runCoinTrades(ctx, { spec, symbols: payload.symbols, memberships, delisted: payload.delisted, ruleTrades: false })
    return payload.groups.map(group => {
      const groupCoins: CoinOutcome[] = group.map(c => coins[c])
      const span = daySpan(groupCoins)
      const coinCount = payload.coinCount ?? group.length
      const { metrics, portfolio } = book(groupTable(trades, payload.symbols, group), portfolioOptionsOf(spec, coinCount), markOver(span, s => ctx.view.bars(s)))
      return { metrics, span, ruinedAtMs: portfolio.ruinedAtMs }
    })
  })
}
