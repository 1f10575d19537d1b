/**
 * Korean names of the registry strategies, written by hand per strategy family (not
 * transliterated ids): `<family> <롱|숏>`. A test checks every registry strategy has one.
 */
import type { Direction } from '../../engine/types'

const FAMILY_KO: Readonly<Record<string, string>> = {
  'bb-squeeze': '볼린저 밴드 스퀴즈',
  'atr-breakout': 'ATR 돌파',
  'adx-trend': 'ADX 추세 추종',
  'momentum-breakout': '모멘텀 돌파',
  'rsi-reversal': 'RSI 반전',
  'macd-cross': 'MACD 교차',
  'mean-reversion': '평균 회귀',
  supertrend: '슈퍼트렌드',
  'donchian-breakout': '돈치안 채널 돌파',
  'keltner-squeeze': '켈트너 채널 스퀴즈',
  'ma-cross': '이동평균 교차',
  ichimoku: '일목균형표',
  'heikin-ashi': '하이킨아시',
  'stochastic-rsi': '스토캐스틱 RSI',
  momentum: '모멘텀',
  'hv-squeeze': '역사적 변동성 스퀴즈',
  'rsi-divergence': 'RSI 다이버전스',
  'volume-profile': '볼륨 프로파일',
}

const DIRECTION_KO: Readonly<Record<Direction, string>> = { long: '롱', short: '숏' }

/** The Korean name of a registry strategy, or null when its family has none written yet. */
export function koreanName(strategyId: string, direction: Direction): string | null {
  const family = strategyId.replace(/-(long|short)$/, '')
  const ko = FAMILY_KO[family]
  return ko ? `${ko} ${DIRECTION_KO[direction]}` : null
}
