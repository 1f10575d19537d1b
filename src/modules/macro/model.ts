import { t } from 'elysia'
import { nullable, SourceLabel } from '../../model/shared'

export const MacroQuote = t.Object({
  value: nullable(t.Number()),
  change: nullable(t.Number({ description: 'against the previous close (percentage points for us10y)' })),
  change_pct: nullable(t.Number()),
  symbol: t.String(),
  market_time: nullable(t.String()),
  source: nullable(t.String()),
  as_of: nullable(t.String()),
  stale: t.Boolean(),
})

export const MacroResponse = t.Object({
  dxy: MacroQuote,
  us10y: MacroQuote,
  sp500: MacroQuote,
  open_interest: t.Array(
    t.Object({ symbol: t.String(), open_interest: t.Number({ description: 'contracts' }), open_interest_usd: nullable(t.Number()), as_of: t.String() }),
  ),
  funding_rates: t.Array(
    t.Object({
      symbol: t.String(),
      funding_rate: t.Number(),
      funding_rate_pct: t.Number(),
      mark_price: nullable(t.Number()),
      next_funding_time: nullable(t.String()),
      as_of: t.String(),
    }),
  ),
  events: t.Array(t.Object({ name: t.String(), kind: t.String(), time: t.String(), confirmed: t.Boolean(), source: t.String() })),
  as_of: nullable(t.String()),
  stale: t.Boolean(),
  sources: t.Object({
    dxy: SourceLabel,
    us10y: SourceLabel,
    sp500: SourceLabel,
    open_interest: SourceLabel,
    funding_rates: SourceLabel,
    events: SourceLabel,
  }),
  missing_sources: t.Array(t.String()),
})
