/**
 * Ranking rules as pure functions: the total order of a population, rank_change and
 * streak against the previous day, top3 / worst3 / weekly_best3, and the headline kind.
 */
import type { Direction } from '../../engine/types'
import type { Timeframe } from '../../market/timeframe'
import type { StrategyStatus } from '../../strategies/status'
import { MIN_TRADES, STREAK_TOP, WEEKLY_DAYS, WEEKLY_MIN_DAYS } from './configurations'

/** A configuration's figures for one period × group: exactly its /simulate answer's. */
export interface RowFigures {
  configuration_id: string
  strategy: string
  name_en: string
  name_ko: string | null
  direction: Direction
  status: StrategyStatus
  timeframe: Timeframe
  sl_pct: number
  tp_pct: number
  max_bars: number
  total_trades: number
  win_rate: number
  profit_factor: number
  pf_capped: boolean
  total_return_pct: number
  sharpe_ratio: number
  max_drawdown_pct: number
  /** when the run's equity reached zero (its /simulate answer's ruined_at); absent in files of rules v1, which did not stop at ruin */
  ruined_at?: string | null
}

export interface RankedRow extends RowFigures {
  /** overall rank in the population, held-back rows included (1 = best) */
  rank: number
  /**
   * rank among the eligible rows alone (1 = best): the rank users see in top3, worst3,
   * weekly_best3, verified_in_ranking, the headline and the mail; null for a held-back
   * row. Written since day-file schema rankings-2; for older files `eligibleRanks` derives it.
   */
  eligible_rank?: number | null
  /** total_trades >= MIN_TRADES: in the ranked list (top3, worst3, weekly_best3); otherwise held back */
  eligible: boolean
  /** rankings-1 files only: the overall rank on the previous day's file (null: not ranked there, or no file) */
  previous_rank?: number | null
  /** rankings-2: the eligible rank on the previous day's file (null: not eligible there, or no file) */
  previous_eligible_rank?: number | null
  /** streak on the previous day's file (null: not ranked there) */
  previous_streak: number | null
  /**
   * rankings-2: previous_eligible_rank − eligible_rank, null when either is null (rankings-1
   * files stored previous_rank − rank; readers recompute it with `eligibleRankChanges`)
   */
  rank_change: number | null
  /**
   * consecutive ranking days ending today on which the row was among the STREAK_TOP best
   * eligible rows (those top3 is drawn from); 0 when it is not today
   */
  streak: number
}

export interface WeeklyRow {
  configuration_id: string
  /** days of the last 7 (ending today) with a file on which it was ranked with >= MIN_TRADES */
  days_ranked: number
  mean_profit_factor: number
  mean_win_rate: number
}

/** The total order: profit factor, then win rate, then total trades (all descending), then id. */
export function compareRows(a: RowFigures, b: RowFigures): number {
  return (
    b.profit_factor - a.profit_factor ||
    b.win_rate - a.win_rate ||
    b.total_trades - a.total_trades ||
    (a.configuration_id < b.configuration_id ? -1 : a.configuration_id > b.configuration_id ? 1 : 0)
  )
}

/**
 * The eligible ranks of a file's rows (rows in overall rank order, as every file stores
 * them): configuration id → rank among the eligible rows. The same for every schema
 * version, so a rankings-1 file's eligible ranks are derived exactly as rankings-2 stores them.
 */
export function eligibleRanks(rows: readonly RankedRow[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of rows) if (r.eligible) out.set(r.configuration_id, out.size + 1)
  return out
}

/**
 * Rank a population (zero-trade rows dropped) against the previous day's ranked rows of
 * the same period × group (null: no file for the previous calendar day, so every
 * rank_change is null and every streak starts over). rank_change compares eligible ranks.
 */
export function rankPopulation(rows: readonly RowFigures[], previous: readonly RankedRow[] | null): RankedRow[] {
  const prev = new Map((previous ?? []).map(r => [r.configuration_id, r]))
  const prevEligible = eligibleRanks(previous ?? [])
  let eligibleSeen = 0
  return rows
    .filter(r => r.total_trades > 0)
    .sort(compareRows)
    .map((r, i) => {
      const rank = i + 1
      const eligible = r.total_trades >= MIN_TRADES
      const eligible_rank = eligible ? ++eligibleSeen : null
      // held-back rows (too few trades) are never in the top 10 a streak counts
      const inTop = eligible_rank !== null && eligible_rank <= STREAK_TOP
      const p = prev.get(r.configuration_id)
      const previous_eligible_rank = prevEligible.get(r.configuration_id) ?? null
      return {
        ...r,
        rank,
        eligible_rank,
        eligible,
        previous_eligible_rank,
        previous_streak: p ? p.streak : null,
        rank_change: previous_eligible_rank === null || eligible_rank === null ? null : previous_eligible_rank - eligible_rank,
        streak: inTop ? (p ? p.streak : 0) + 1 : 0,
      }
    })
}

/**
 * The ranked list users see, from any file's rows: the eligible rows in rank order, each
 * with `rank` = its eligible rank and `overall_rank` = its rank in the whole population,
 * and rank_change between eligible ranks. A rankings-2 file stores these; for a rankings-1
 * file they are derived from its rows and the previous day's (`previous`: that file's
 * rows of the same period × group, null when there is none).
 */
export interface EligibleRow extends RankedRow {
  overall_rank: number
}
export function eligibleList(rows: readonly RankedRow[], previous: readonly RankedRow[] | null, stored: boolean): EligibleRow[] {
  const prevEligible = stored ? null : eligibleRanks(previous ?? [])
  const out: EligibleRow[] = []
  for (const r of rows) {
    if (!r.eligible) continue
    const rank = out.length + 1
    const p = prevEligible === null ? (r.previous_eligible_rank ?? null) : (prevEligible.get(r.configuration_id) ?? null)
    out.push({ ...r, overall_rank: r.rank, rank, eligible_rank: rank, previous_eligible_rank: p, rank_change: stored ? r.rank_change : p === null ? null : p - rank })
  }
  return out
}

/** The rows held back from the ranked list (fewer than MIN_TRADES trades), in overall rank order. */
export function heldBack(rows: readonly RankedRow[]): RankedRow[] {
  return rows.filter(r => !r.eligible)
}

/** The three best eligible rows, in rank order. */
export function top3<R extends RankedRow>(rows: readonly R[]): R[] {
  return rows.filter(r => r.eligible).slice(0, 3)
}

/** The three worst eligible rows, worst first. */
export function worst3<R extends RankedRow>(rows: readonly R[]): R[] {
  return rows.filter(r => r.eligible).slice(-3).reverse()
}

/**
 * weekly_best3 from the ranked rows of up to 7 days ending today (one array per day that
 * has a file): configurations eligible on at least WEEKLY_MIN_DAYS of them, by mean profit
 * factor, then mean win rate (descending), then id.
 */
export function weeklyBest3(days: readonly (readonly RankedRow[])[]): WeeklyRow[] {
  const acc = new Map<string, { n: number; pf: number; wr: number }>()
  for (const rows of days.slice(0, WEEKLY_DAYS))
    for (const r of rows) {
      if (!r.eligible) continue
      const a = acc.get(r.configuration_id) ?? { n: 0, pf: 0, wr: 0 }
      a.n++
      a.pf += r.profit_factor
      a.wr += r.win_rate
      acc.set(r.configuration_id, a)
    }
  return [...acc]
    .filter(([, a]) => a.n >= WEEKLY_MIN_DAYS)
    .map(([id, a]) => ({ configuration_id: id, days_ranked: a.n, mean_profit_factor: a.pf / a.n, mean_win_rate: a.wr / a.n }))
    .sort(
      (a, b) =>
        b.mean_profit_factor - a.mean_profit_factor ||
        b.mean_win_rate - a.mean_win_rate ||
        (a.configuration_id < b.configuration_id ? -1 : a.configuration_id > b.configuration_id ? 1 : 0),
    )
    .slice(0, 3)
}

export type HeadlineKind = 'verified_below' | 'verified_ranked_lower' | 'no_verified_in_group' | 'unknown' | null

export interface Headline {
  headline_has_verified: boolean
  headline_note_kind: HeadlineKind
  headline_note: { en: string; ko: string } | null
  verified_in_ranking: { configuration_id: string; rank: number; profit_factor: number; pf_capped: boolean }[]
}

const pfText = (r: { profit_factor: number; pf_capped: boolean }) => (r.pf_capped ? `${r.profit_factor} (capped)` : r.profit_factor.toFixed(2))

/**
 * The contract's headline table, case by case, on the ranked list users see: `list` is
 * the eligible rows with their eligible ranks (`eligibleList`), `held` the rows held back
 * for too few trades (they are not in the list, so "verified ones rank lower" is never
 * said of a row ranked above top3; the sentence names held-back verified rows apart).
 * `published`: the group is one of the published universes (a ranking of any other group
 * has no sentence: `unknown`).
 */
export function headlineOf(list: readonly RankedRow[], published: boolean, held: readonly RankedRow[] = []): Headline {
  const verified = list.filter(r => r.status === 'verified')
  const verified_in_ranking = verified.map(r => ({ configuration_id: r.configuration_id, rank: r.rank, profit_factor: r.profit_factor, pf_capped: r.pf_capped }))
  const top = top3(list)
  const has = top.some(r => r.status === 'verified')
  const none = (kind: HeadlineKind) => ({ headline_has_verified: has, headline_note_kind: kind, headline_note: null, verified_in_ranking })
  if (has || top.length === 0) return none(null)
  if (!published) return none('unknown')
  const heldVerified = held.filter(r => r.status === 'verified').length
  const heldEn = heldVerified ? ` ${heldVerified} verified configuration${heldVerified === 1 ? ' is' : 's are'} held back (fewer than ${MIN_TRADES} trades; see held_back).` : ''
  const heldKo = heldVerified ? ` 검증된 구성 ${heldVerified}개는 거래 수가 ${MIN_TRADES}회 미만이라 순위에서 제외되었습니다(held_back 참조).` : ''
  if (verified.length === 0)
    return {
      ...none('no_verified_in_group'),
      headline_note: {
        en: `No strategy labelled verified is in this ranking: every ranked configuration is testing or research.${heldEn}`,
        ko: `이 순위에는 검증(verified) 전략이 없습니다. 순위에 오른 모든 구성은 테스트 중이거나 연구 단계입니다.${heldKo}`,
      },
    }
  const list5 = verified.slice(0, 5).map(r => `#${r.rank} (PF ${pfText(r)})`).join(', ')
  const more = verified.length > 5 ? ` and ${verified.length - 5} more` : ''
  const moreKo = verified.length > 5 ? ` 외 ${verified.length - 5}개` : ''
  if (verified.every(r => r.profit_factor < 1))
    return {
      ...none('verified_below'),
      headline_note: {
        en: `No verified configuration is in the top 3; verified ones rank lower and all have a profit factor below 1 here: ${list5}${more}.${heldEn}`,
        ko: `상위 3위 안에 검증된 구성이 없습니다. 검증된 구성은 더 낮은 순위이며 이 기간에는 모두 수익 팩터가 1 미만입니다: ${list5}${moreKo}.${heldKo}`,
      },
    }
  return {
    ...none('verified_ranked_lower'),
    headline_note: {
      en: `No verified configuration is in the top 3; verified ones rank lower: ${list5}${more}.${heldEn}`,
      ko: `상위 3위 안에 검증된 구성이 없습니다. 검증된 구성의 순위: ${list5}${moreKo}.${heldKo}`,
    },
  }
}
