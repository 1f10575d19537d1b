/**
 * GET /paper-trading and /performance/public: the stored cycle as the paper trader left
 * it (src/live/paper-trader.ts), read through src/records/paper.ts; no simulation runs in a request.
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import type { CandleStore } from '../../market/candle-store'
import type { SeriesCache } from '../../market/series'
import { closedPositions, equityAt, historyOf, latestPicks, openPositions, paperCycle, paperWaitingReason, PICK_RULE, positionItem, realizedPnlUsd, type PaperCycleRow } from '../../records/paper'
import { roundTo } from '../../round'
import { NotFound } from '../../runs/errors'
import { DAY_MS, isoDay, isoInstant } from '../../time'
import type { PerformancePublic } from './model'

export interface PaperServiceDeps {
  db: Db
  clock: Clock
  series: SeriesCache
  /** to say why no cycle runs on a store whose candles end before today */
  store: Pick<CandleStore, 'newestCandleMs'>
  /** the current regime, as GET /regime answers it (for /performance/public) */
  marketContext: { regime(): Promise<unknown> }
}

const r2 = (x: number) => roundTo(x, 2)
const r4 = (x: number) => roundTo(x, 4)

export class PaperService {
  constructor(private readonly deps: PaperServiceDeps) {}

  private cycleRow(cycle: number | undefined): Promise<PaperCycleRow | null> {
    return paperCycle(this.deps.db, cycle)
  }

  /** The cycle's state, or null: no cycle yet (cycle undefined) or no such cycle. */
  async state(cycle?: number) {
    const c = await this.cycleRow(cycle)
    if (!c) return null
    const { db } = this.deps
    const now = this.deps.clock.now()
    const endMs = c.startMs + c.lengthDays * DAY_MS
    const at = c.status === 'complete' ? endMs : Math.min(now, endMs)
    const open = await openPositions(db, c.id)
    const closed = await closedPositions(db, c.id, 20)
    const history = await historyOf(db, c.id)
    const realized = await realizedPnlUsd(db, c.id)
    const unrealized = open.reduce((s, p) => s + (p.unrealizedUsd ?? 0), 0)
    const equity = c.status === 'complete' && c.finalEquity !== null ? c.finalEquity : c.startingCapital + realized + unrealized
    const last = history.at(-1)
    const before = history.at(-2)
    const picks = await latestPicks(db, c.id)
    return {
      cycle_id: c.id,
      cycle_status: c.status as 'active' | 'complete',
      cycle_day: Math.min(c.lengthDays, Math.floor((at - c.startMs) / DAY_MS) + 1),
      cycle_length_days: c.lengthDays,
      start_date: isoDay(c.startMs),
      end_date: isoDay(endMs - DAY_MS),
      starting_capital: c.startingCapital,
      slots: c.slots,
      current_equity: r2(equity),
      total_return_pct: r4((equity / c.startingCapital - 1) * 100),
      yesterday_pnl: last ? r2(last.equity - (before?.equity ?? c.startingCapital)) : null,
      yesterday: last?.date ?? null,
      realized_pnl: r2(realized),
      unrealized_pnl: r2(unrealized),
      open_positions: open.map(positionItem),
      closed_positions: closed.map(positionItem),
      history: history.map(h => ({ date: h.date, equity: r2(h.equity), open_count: h.openCount, closed_count: h.closedCount })),
      picks: picks ? { day: picks.day, picked_at: isoInstant(picks.pickedAtMs), rule: picks.rule, ranking_date: picks.rankingDate, strategies: picks.picks } : null,
      pick_rule: PICK_RULE,
      marked_at: isoInstant(now),
      completed_at: c.completedAtMs === null ? null : isoInstant(c.completedAtMs),
    }
  }

  /** GET /paper-trading: the cycle's state; NotFound (the contract's 404) before the first cycle or for a cycle that does not exist. */
  async cycle(cycle?: number) {
    const state = await this.state(cycle)
    if (!state)
      throw new NotFound(
        cycle === undefined
          ? `paper trading is not initialized yet: ${paperWaitingReason(this.deps.store, this.deps.clock.now()) ?? 'the first cycle starts at the first hourly run of the live-records job'}`
          : `no paper-trading cycle ${cycle}`,
      )
    return state
  }

  /** /performance/public's paper part: the pick, the live positions in summary, the cycle's return. */
  /** GET /performance/public: the current regime beside the paper cycle's summary. */
  async publicPerformance(): Promise<typeof PerformancePublic.static> {
    return { as_of: isoInstant(this.deps.clock.now()), regime: await this.deps.marketContext.regime(), paper: await this.summary() }
  }

  async summary() {
    const s = await this.state()
    if (!s) return null
    const exposure = s.open_positions.filter(p => p.status === 'open').reduce((x, p) => x + p.margin_usd * p.leverage, 0)
    return {
      cycle_id: s.cycle_id,
      cycle_status: s.cycle_status,
      cycle_day: s.cycle_day,
      cycle_return_pct: s.total_return_pct,
      strategy_pick: s.picks,
      positions: { open_count: s.open_positions.length, exposure_usd: r2(exposure), unrealized_pnl_usd: s.unrealized_pnl },
    }
  }

  /** equity recomputed from the positions and candles at an instant (for tests and audits) */
  async equityAt(cycle: number, atMs: number) {
    const c = await this.cycleRow(cycle)
    return c ? equityAt(this.deps, c, atMs) : null
  }
}
