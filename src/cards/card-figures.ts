/**
 * What a card shows: the recomputed figures of one run and the settings they came from,
 * formatted once for the card, the share page and the weekly mail.
 */
import type { Direction } from '../engine/types'
import type { Timeframe } from '../market/timeframe'
import type { StrategyStatus } from '../strategies/status'
import { LABELS, type Lang } from './labels'

export interface CardSettings {
  slPct: number
  tpPct: number
  leverage: number
  /** taker fee per side in percent (0.05 = 0.05 %) */
  feePct: number
  topN: number
  from: string | null
  to: string | null
  timeframe: Timeframe
  /** null: the strategy's (or preset's) own max_bars */
  maxBars: number | null
}

export interface CardFigures {
  name: string
  /** the Korean name where one is written (registry strategies), shown on Korean cards */
  nameKo: string | null
  direction: Direction
  /** a builder preset carries no status */
  status: StrategyStatus | 'preset'
  settings: CardSettings
  winRatePct: number
  profitFactor: number
  profitFactorCapped: boolean
  totalReturnPct: number
  maxDrawdownPct: number
  /** the UTC day (YYYY-MM-DD) the run's equity reached zero; null when it never did */
  ruinedOn: string | null
  trades: number
  /** the run's daily equity curve as return in % of the initial capital */
  equityReturnPct: number[]
  /** first and last UTC day (YYYY-MM-DD) of the run's equity curve; null without bars */
  dataSpan: { from: string; to: string } | null
}

const num = (x: number, digits: number) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const signed = (x: number, digits: number) => (x > 0 ? '+' : x < 0 ? '−' : '') + num(Math.abs(x), digits)

export interface FormattedFigures {
  winRate: string
  profitFactor: string
  totalReturn: string
  maxDrawdown: string
  trades: string
}

export function formatFigures(f: CardFigures): FormattedFigures {
  // no trades: there is no rate, factor, return or drawdown to show (not zeros)
  if (f.trades === 0) return { winRate: '–', profitFactor: '–', totalReturn: '–', maxDrawdown: '–', trades: '0' }
  return {
    winRate: `${num(f.winRatePct, 1)}%`,
    profitFactor: f.profitFactorCapped ? `≥${num(f.profitFactor, 0)}` : num(f.profitFactor, 2),
    totalReturn: `${signed(f.totalReturnPct, 1)}%`,
    // drawdowns are shown as the loss they are, whatever sign the engine stores them with
    maxDrawdown: `${f.maxDrawdownPct === 0 ? '' : '−'}${num(Math.abs(f.maxDrawdownPct), 1)}%`,
    trades: num(f.trades, 0),
  }
}

/** `2025-01-01 to 2025-05-30` (ko: `2025-01-01 ~ 2025-05-30`), '' without bars */
export function dataSpanText(f: CardFigures, lang: Lang): string {
  return f.dataSpan ? `${f.dataSpan.from}${lang === 'ko' ? ' ~ ' : ' to '}${f.dataSpan.to}` : ''
}

/** the strategy's name in the card's language */
export const nameIn = (f: CardFigures, lang: Lang) => (lang === 'ko' && f.nameKo ? f.nameKo : f.name)

const trim = (x: number) => String(Number(x.toFixed(4)))

/** `SL 10% · TP 8% · 5x · fee 0.05% · top 10 coins · 2024-01-01 – 2024-06-30` */
export function settingsLine(s: CardSettings, lang: Lang): string {
  const L = LABELS[lang]
  const range = s.from || s.to ? `${s.from ?? '…'} – ${s.to ?? '…'}` : L.allHistory
  return [...(s.timeframe === '1H' ? [] : [s.timeframe]), `SL ${trim(s.slPct)}%`, `TP ${trim(s.tpPct)}%`, `${trim(s.leverage)}x`, `${L.fee} ${trim(s.feePct)}%`, L.coins(s.topN), range].join(' · ')
}
