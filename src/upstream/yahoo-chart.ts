/**
 * Macro quotes from Yahoo Finance's chart API:
 * GET {base}/v8/finance/chart/<symbol>?range=5d&interval=1d.
 * DXY is DX-Y.NYB, the US 10-year yield ^TNX (in percent), the S&P 500 ^GSPC.
 */
import { UpstreamError } from './errors'
import { httpGetJson } from './http'
import { list, num, optNum, parseBody, record } from './shape'

export const YAHOO_SOURCE = 'yahoo-finance'

export interface Quote {
  symbol: string
  /** last price (regularMarketPrice) */
  value: number
  /** close of the last session before the one of `value`; null when the series has none */
  previousClose: number | null
  /** value − previousClose, in the quote's own unit (points; percentage points for ^TNX) */
  change: number | null
  changePct: number | null
  /** time of the last price (ms) */
  marketTimeMs: number
}

export interface YahooChartClientOptions {
  baseUrl: string
  timeoutMs: number
}

export class YahooChartClient {
  constructor(private readonly opts: YahooChartClientOptions) {}

  async quote(symbol: string): Promise<Quote> {
    const url = `${this.opts.baseUrl}/v8/finance/chart/${encodeURIComponent(symbol)}?range=5d&interval=1d`
    const body = await httpGetJson(url, { source: YAHOO_SOURCE, timeoutMs: this.opts.timeoutMs })
    return parseBody(YAHOO_SOURCE, body, b => parseChart(b, symbol))
  }
}

export function parseChart(body: unknown, symbol: string): Quote {
  const chart = record(record(body, '').chart, 'chart')
  if (chart.error !== null && chart.error !== undefined) {
    const err = record(chart.error, 'chart.error')
    throw new UpstreamError(YAHOO_SOURCE, 'http_status', `${symbol}: ${String(err.code)}: ${String(err.description)}`)
  }
  const results = list(chart.result, 'chart.result')
  if (results.length === 0) throw new UpstreamError(YAHOO_SOURCE, 'malformed', `${symbol}: chart.result is empty`)
  const r = record(results[0], 'chart.result[0]')
  const meta = record(r.meta, 'chart.result[0].meta')
  const ts = list(r.timestamp, 'chart.result[0].timestamp').map((x, i) => num(x, `chart.result[0].timestamp[${i}]`))
  const quote = record(list(record(r.indicators, 'chart.result[0].indicators').quote, 'indicators.quote')[0], 'indicators.quote[0]')
  const closes = list(quote.close, 'indicators.quote[0].close').map((x, i) => optNum(x, `indicators.quote[0].close[${i}]`))

  if (ts.length !== closes.length) throw new UpstreamError(YAHOO_SOURCE, 'malformed', `${symbol}: ${ts.length} timestamps but ${closes.length} closes`)
  let lastValid = -1
  for (let i = closes.length - 1; i >= 0 && lastValid < 0; i--) if (closes[i] !== null) lastValid = i
  const value = optNum(meta.regularMarketPrice, 'meta.regularMarketPrice') ?? (lastValid >= 0 ? closes[lastValid] : null)
  if (value === null) throw new UpstreamError(YAHOO_SOURCE, 'malformed', `${symbol}: no price in meta or closes`)
  const marketTimeS = optNum(meta.regularMarketTime, 'meta.regularMarketTime') ?? (lastValid >= 0 ? ts[lastValid] : null)
  if (marketTimeS === null) throw new UpstreamError(YAHOO_SOURCE, 'malformed', `${symbol}: no market time`)
  // previous close = the last close of an exchange-local day before the day of the last
  // price (the current session's bar may be missing, partial or null)
  const gmtOffsetS = optNum(meta.gmtoffset, 'meta.gmtoffset') ?? 0
  const localDay = (tS: number) => Math.floor((tS + gmtOffsetS) / 86_400)
  let previousClose: number | null = null
  for (let i = closes.length - 1; i >= 0 && previousClose === null; i--)
    if (closes[i] !== null && localDay(ts[i]) < localDay(marketTimeS)) previousClose = closes[i]
  const change = previousClose === null ? null : value - previousClose
  return {
    symbol,
    value,
    previousClose,
    change,
    changePct: change === null || !previousClose ? null : (change / previousClose) * 100,
    marketTimeMs: marketTimeS * 1000,
  }
}
