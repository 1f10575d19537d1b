/**
 * GET /macro: DXY, US 10-year yield and S&P 500 quotes, open interest and funding of the
 * largest perpetuals, and the upcoming scheduled events.
 */
import type { FundingNow, OpenInterest } from '../upstream/binance'
import type { Quote } from '../upstream/yahoo-chart'
import type { MacroEvent } from './events-calendar'
import { localLabel, missingLabel, preferUpstream, summarize, upstreamLabel, type Label } from './labels'
import { isoInstant } from '../time'
import type { LocalFunding } from './local'
import type { FundingItem } from './overview'
import type { MacroField } from './sources'
import type { CacheRead } from './swr-cache'

export interface MacroQuote {
  value: number | null
  /** value − previous close (points; percentage points for us10y) */
  change: number | null
  change_pct: number | null
  symbol: string
  /** time of the quote at its exchange */
  market_time: string | null
  source: string | null
  as_of: string | null
  stale: boolean
}

export interface OpenInterestItem {
  symbol: string
  /** contracts (base coin) */
  open_interest: number
  /** contracts × mark price; null without a mark price */
  open_interest_usd: number | null
  as_of: string
}

/** a funding-rate row: the same record /market's extreme_funding lists */
export type FundingRateItem = FundingItem

export interface EventItem {
  name: string
  kind: string
  /** ISO 8601 UTC */
  time: string
  confirmed: boolean
  source: string
}

export interface MacroView {
  dxy: MacroQuote
  us10y: MacroQuote
  sp500: MacroQuote
  open_interest: OpenInterestItem[]
  funding_rates: FundingRateItem[]
  events: EventItem[]
  as_of: string | null
  stale: boolean
  sources: Record<MacroField | 'open_interest' | 'funding_rates' | 'events', Label>
  missing_sources: string[]
}

export interface MacroInputs {
  nowMs: number
  quotes: Record<MacroField, { symbol: string; read: CacheRead<Quote> }>
  openInterest: CacheRead<OpenInterest[]>
  premium: CacheRead<FundingNow[]>
  /** the perpetuals shown (open interest and funding) */
  symbols: string[]
  localFunding: LocalFunding[]
  events: MacroEvent[]
  eventsSource: string
}

export function composeMacro(x: MacroInputs): MacroView {
  const missing: string[] = []
  const labels = {} as MacroView['sources']
  const quote = (field: MacroField): MacroQuote => {
    const { symbol, read } = x.quotes[field]
    const q = read.value
    labels[field] = q ? upstreamLabel(read, x.nowMs) : missingLabel(read.error)
    if (!q) missing.push(`${read.source}:${symbol}`)
    return {
      value: q?.value ?? null,
      change: q?.change ?? null,
      change_pct: q?.changePct ?? null,
      symbol,
      market_time: q ? isoInstant(q.marketTimeMs) : null,
      source: q ? read.source : null,
      as_of: labels[field].as_of,
      stale: labels[field].stale,
    }
  }
  const dxy = quote('dxy'), us10y = quote('us10y'), sp500 = quote('sp500')

  const wanted = new Set(x.symbols)
  const marks = new Map((x.premium.value ?? []).map(f => [f.symbol, f.markPrice]))
  let openInterest: OpenInterestItem[] = []
  if (x.openInterest.value) {
    const asOf = isoInstant(x.openInterest.fetchedAtMs!)
    openInterest = x.openInterest.value
      .filter(o => wanted.has(o.symbol))
      .map(o => {
        const mark = marks.get(o.symbol)
        return { symbol: o.symbol, open_interest: o.contracts, open_interest_usd: mark === undefined ? null : o.contracts * mark, as_of: asOf }
      })
    labels.open_interest = upstreamLabel(x.openInterest, x.nowMs)
  } else {
    labels.open_interest = missingLabel(x.openInterest.error)
    missing.push(x.openInterest.source)
  }

  let funding: FundingRateItem[] = []
  const localNewest = x.localFunding.reduce<number | null>((m, f) => (m === null || f.timeMs > m ? f.timeMs : m), null)
  if (preferUpstream(x.premium, localNewest)) {
    const asOf = isoInstant(x.premium.fetchedAtMs!)
    funding = x.premium.value!.filter(f => wanted.has(f.symbol)).map(f => fundingItem(f.symbol, f.fundingRate, f.markPrice, f.nextFundingTimeMs, asOf))
    labels.funding_rates = upstreamLabel(x.premium, x.nowMs)
  } else if (localNewest !== null) {
    funding = x.localFunding.filter(f => wanted.has(f.symbol)).map(f => fundingItem(f.symbol, f.rate, null, null, isoInstant(f.timeMs)))
    labels.funding_rates = localLabel(localNewest, x.nowMs, x.premium.error)
  } else {
    labels.funding_rates = missingLabel(x.premium.error)
    missing.push(x.premium.source)
  }
  funding.sort((a, b) => x.symbols.indexOf(a.symbol) - x.symbols.indexOf(b.symbol))
  openInterest.sort((a, b) => x.symbols.indexOf(a.symbol) - x.symbols.indexOf(b.symbol))

  // the calendar is a file shipped with the service: always present, never stale
  labels.events = { source: x.eventsSource, as_of: null, age_seconds: null, stale: false, proxy: false, error: null }
  const events = x.events.map(e => ({ name: e.name, kind: e.kind, time: isoInstant(e.atMs), confirmed: e.confirmed, source: e.source }))

  return { dxy, us10y, sp500, open_interest: openInterest, funding_rates: funding, events, ...summarize(Object.values(labels)), sources: labels, missing_sources: missing }
}

function fundingItem(symbol: string, rate: number, mark: number | null, nextMs: number | null, asOf: string): FundingRateItem {
  return { symbol, funding_rate: rate, funding_rate_pct: rate * 100, mark_price: mark, next_funding_time: nextMs === null ? null : isoInstant(nextMs), as_of: asOf }
}
