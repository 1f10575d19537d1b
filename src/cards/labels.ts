/**
 * The words of a card, the share page and the weekly mail, in English and Korean.
 * Directions, figure labels, statuses and the disclaimer are translated here; Korean
 * strategy names come from the rankings' names-ko.
 */
import type { Direction } from '../engine/types'
import type { StrategyStatus } from '../strategies/status'

export type Lang = 'en' | 'ko'
export const LANGS = ['en', 'ko'] as const satisfies readonly Lang[]

export interface Labels {
  direction: Record<Direction, string>
  status: Record<StrategyStatus | 'preset', string>
  winRate: string
  profitFactor: string
  totalReturn: string
  maxDrawdown: string
  trades: string
  fee: string
  coins: (n: number) => string
  allHistory: string
  noTrades: string
  /** the line of a ruined run: the UTC day its equity reached zero (YYYY-MM-DD) */
  ruinedOn: (day: string) => string
  disclaimer: string
  /** the share page */
  shareTitle: (name: string, direction: string) => string
  shareDescription: (f: { winRate: string; profitFactor: string; totalReturn: string; maxDrawdown: string; trades: string }) => string
  openSimulator: string
  redirecting: string
}

export const LABELS: Record<Lang, Labels> = {
  en: {
    direction: { long: 'LONG', short: 'SHORT' },
    status: { verified: 'Verified', testing: 'Testing', research: 'Research', preset: 'Builder preset' },
    winRate: 'Win rate',
    profitFactor: 'Profit factor',
    totalReturn: 'Return (sum)',
    maxDrawdown: 'Max drawdown',
    trades: 'Trades',
    fee: 'fee',
    coins: n => `top ${n} coins`,
    allHistory: 'all history',
    noTrades: 'No trades in this window',
    ruinedOn: day => `Ruined on ${day}: the equity reached zero`,
    disclaimer: 'A backtest on past data, not a promise of future results.',
    shareTitle: (name, dir) => `${name} (${dir}) backtest on perpsim`,
    shareDescription: f =>
      `Win rate ${f.winRate}, profit factor ${f.profitFactor}, return ${f.totalReturn}, max drawdown ${f.maxDrawdown} over ${f.trades} trades. A backtest, not a promise.`,
    openSimulator: 'Open these settings in the simulator',
    redirecting: 'Taking you to the simulator…',
  },
  ko: {
    direction: { long: '롱', short: '숏' },
    status: { verified: '검증됨', testing: '테스트 중', research: '연구 단계', preset: '빌더 프리셋' },
    winRate: '승률',
    profitFactor: '수익 팩터',
    totalReturn: '수익률 (합계)',
    maxDrawdown: '최대 낙폭',
    trades: '거래 수',
    fee: '수수료',
    coins: n => `상위 ${n}개 코인`,
    allHistory: '전체 기간',
    noTrades: '이 기간에는 거래가 없습니다',
    ruinedOn: day => `${day} 파산: 자산이 0이 되었습니다`,
    disclaimer: '과거 데이터로 한 백테스트이며, 미래 수익을 약속하지 않습니다.',
    shareTitle: (name, dir) => `${name} (${dir}) 백테스트 - perpsim`,
    shareDescription: f =>
      `승률 ${f.winRate}, 수익 팩터 ${f.profitFactor}, 수익률 ${f.totalReturn}, 최대 낙폭 ${f.maxDrawdown}, 거래 ${f.trades}회. 백테스트 결과이며 약속이 아닙니다.`,
    openSimulator: '이 설정으로 시뮬레이터 열기',
    redirecting: '시뮬레이터로 이동합니다…',
  },
}
