import { t } from 'elysia'
import { TIMEFRAMES } from '../../market/timeframe'

const Day = t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD (UTC day, inclusive)' })
// a union of literals, not t.UnionEnum: Elysia fills an optional UnionEnum with its first value
const Direction = t.Union([t.Literal('long'), t.Literal('short')], {
  description: "default: the strategy's own direction; a family id without direction (bb-squeeze) takes it from here, default as the contract says",
})
const Lang = t.UnionEnum(['en', 'ko'], { default: 'en' })

/** The settings a card or a share page is recomputed from (the figures never come from the URL). */
const settings = {
  dir: t.Optional(Direction),
  sl: t.Number({ minimum: 0.5, maximum: 50, default: 10, description: 'stop loss, % of entry price' }),
  tp: t.Number({ minimum: 0.5, maximum: 100, default: 8, description: 'take profit, % of entry price' }),
  topN: t.Integer({ minimum: 1, maximum: 535, default: 10, description: 'top-N coins by market cap' }),
  lev: t.Number({ minimum: 1, maximum: 125, default: 5 }),
  fee: t.Number({ minimum: 0, maximum: 1, default: 0.05, description: 'taker fee per side in percent (0.05 = 0.05 %)' }),
  from: t.Optional(Day),
  to: t.Optional(Day),
  tf: t.UnionEnum([...TIMEFRAMES], { default: '1H', description: 'candle timeframe (not in the contract: lets a ranking row be shared exactly)' }),
  bars: t.Optional(t.Integer({ minimum: 1, maximum: 168, description: "max bars held; default: the strategy's own (not in the contract)" })),
  lang: Lang,
}

const legacyFigure = t.Optional(t.String({ maxLength: 200, description: 'legacy: accepted and ignored; figures are always recomputed' }))

export const OgQuery = t.Object({
  strategy: t.String({ minLength: 1, maxLength: 100, default: 'bb-squeeze-short', description: 'registry strategy id or builder preset id' }),
  ...settings,
  wr: legacyFigure,
  pf: legacyFigure,
  ret: legacyFigure,
  trades: legacyFigure,
  mdd: legacyFigure,
})

export const ShareQuery = t.Object({
  preset: t.String({ minLength: 1, maxLength: 100, description: 'registry strategy id or builder preset id' }),
  ...settings,
})

export type OgQuery = typeof OgQuery.static
export type ShareQuery = typeof ShareQuery.static
