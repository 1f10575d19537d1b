/**
 * The weekly alert's signal section: the verified strategies' scored signals that closed
 * during the week (docs/signals.md), per strategy: how many, the share that ended with a
 * positive net result, and their summed net result (% of margin, the reference model's
 * net). Open and unscoreable rows carry no result and are not counted.
 */
import type { Queryable } from '../db'
import { koreanName } from '../records/rankings/names-ko'
import { closedResultsBetween } from '../records/signals'
import { listStrategies } from '../strategies/registry'
import type { WeeklySignalsSource } from './weekly'
import type { DigestSignals } from './weekly-digest'

export function scoredSignalsSource(db: Queryable): WeeklySignalsSource {
  return async (fromMs, toMs) => {
    const verified = listStrategies().filter(s => s.status === 'verified')
    const rows = await closedResultsBetween(db, fromMs, toMs, verified.map(s => s.id))
    return verified.map((s): DigestSignals => {
      const mine = rows.filter(r => r.strategy === s.id)
      const wins = mine.filter(r => r.pnlPct > 0).length
      return {
        strategyId: s.id,
        name: s.name,
        nameKo: koreanName(s.id, s.direction),
        direction: s.direction,
        count: mine.length,
        winRatePct: mine.length ? (100 * wins) / mine.length : 0,
        netPct: mine.reduce((a, r) => a + r.pnlPct, 0),
      }
    })
  }
}
