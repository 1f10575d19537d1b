/**
 * Market regime from the fear & greed value, with the contract's exact bands and the
 * strategies it recommends in each (ids of the strategy registry).
 */
import { getStrategy } from '../strategies/registry'

export type RegimeName = 'Extreme Fear' | 'Fear' | 'Neutral' | 'Greed' | 'Extreme Greed'

export interface RegimeBand {
  name: RegimeName
  /** inclusive bounds on the 0..100 scale */
  min: number
  max: number
  strategies: readonly string[]
}

/** Contract: Extreme Fear < 25; Fear 25–44; Neutral 45–59; Greed 60–79; Extreme Greed ≥ 80. */
export const REGIME_BANDS: readonly RegimeBand[] = [
  { name: 'Extreme Fear', min: 0, max: 24, strategies: ['atr-breakout-short', 'bb-squeeze-short'] },
  { name: 'Fear', min: 25, max: 44, strategies: ['adx-trend-short'] },
  { name: 'Neutral', min: 45, max: 59, strategies: ['bb-squeeze-short', 'atr-breakout-short'] },
  { name: 'Greed', min: 60, max: 79, strategies: ['bb-squeeze-long'] },
  { name: 'Extreme Greed', min: 80, max: 100, strategies: ['atr-breakout-short', 'bb-squeeze-long'] },
]

/** The band of a value; thresholds compare with `<` so a fractional value falls below the next band's start. */
export function regimeBand(value: number): RegimeBand {
  if (value < 25) return REGIME_BANDS[0]
  if (value < 45) return REGIME_BANDS[1]
  if (value < 60) return REGIME_BANDS[2]
  if (value < 80) return REGIME_BANDS[3]
  return REGIME_BANDS[4]
}

export interface RecommendedStrategy {
  id: string
  name: string
  direction: string
}

/** The band's strategies as registry entries; an id missing from the registry is a programming error. */
export function recommendedStrategies(band: RegimeBand): RecommendedStrategy[] {
  return band.strategies.map(id => {
    const s = getStrategy(id)
    if (!s) throw new Error(`regime band ${band.name} names strategy ${id}, which the registry does not have`)
    return { id: s.id, name: s.name, direction: s.direction }
  })
}
