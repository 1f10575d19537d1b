/**
 * What one week's alert says, gathered once per week and frozen in weekly_digests, so
 * every subscriber (and a resumed run) gets the same figures.
 */
import type { Direction } from '../engine/types'

export interface DigestRow {
  rank: number
  strategyId: string
  name: string
  /** the Korean name where the rankings have one */
  nameKo: string | null
  direction: Direction
  timeframe: string
  slPct: number
  tpPct: number
  maxBars: number
  /** the period's figures on the ranking day; null when the configuration was not ranked that day */
  figures: {
    winRatePct: number
    profitFactor: number
    totalReturnPct: number
    maxDrawdownPct: number
    trades: number
    /** the UTC day (YYYY-MM-DD) the run's equity reached zero, null when it never did; absent in digests frozen before ruin was recorded */
    ruinedOn?: string | null
  } | null
  /** weekly_best3 only: what put it there (days ranked of the last 7, mean profit factor and win rate) */
  weekly: { daysRanked: number; meanProfitFactor: number; meanWinRatePct: number } | null
  /** the /share query of this configuration (without lang) */
  share: Record<string, string>
}

export interface DigestSignals {
  strategyId: string
  name: string
  nameKo: string | null
  direction: Direction
  count: number
  winRatePct: number
  /** summed net result of the week's closed signals, % of margin */
  netPct: number
}

export interface WeeklyDigest {
  /** ISO week, YYYY-Www */
  week: string
  /** the ranking day file the figures come from (YYYY-MM-DD), null when none exists */
  rankingDate: string | null
  /** the ranking's group and period, e.g. top50 / 30d */
  rankingScope: string
  weeklyBest: DigestRow[]
  top30d: DigestRow[]
  /** null: the scored signals are not available, and the mail says so */
  signals: DigestSignals[] | null
}
