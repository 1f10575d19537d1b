/**
 * Binance spot and USDT-M futures market data through ccxt.
 *
 * ccxt's raw (implicit) endpoints are used, not the unified fetchTickers /
 * fetchFundingRates: the unified calls first run loadMarkets, i.e. download spot, USDT-M
 * and COIN-M exchangeInfo (several MB) before the first answer, which does not fit a 2 s
 * answer budget and would make every test server emulate exchangeInfo too. The raw calls
 * still go through ccxt's transport, URL handling and error mapping (429 -> DDoSProtection,
 * 5xx -> ExchangeNotAvailable, abort -> RequestTimeout), and we parse Binance's documented
 * bodies ourselves so a malformed one is a typed error.
 *
 * ccxt's own throttle is off: its leaky bucket charges a whole-market ticker call 40
 * weight x 50 ms, so the parallel calls of one /market refresh would wait seconds for each
 * other. Our cadence is bounded by the single-flight caches instead (at most ~100 weight
 * a minute against Binance's 2,400-6,000).
 *
 * ccxt is imported on first use: loading it costs ~0.3 s, and with OFFLINE=1 it is never
 * needed.
 */
import type { binance as CcxtBinance } from 'ccxt'
import { UpstreamError } from './errors'
import { list, num, parseBody, record, str } from './shape'

export const SPOT_SOURCE = 'binance-spot'
export const FUTURES_SOURCE = 'binance-usdm'

/** One market's 24 h rolling ticker. */
export interface Ticker24h {
  symbol: string
  price: number
  /** % change over the rolling 24 h window */
  changePct: number
  /** 24 h volume in quote currency (USDT) */
  quoteVolume: number
  /** close time of the rolling window (ms) */
  closeTimeMs: number
}

/** Current funding state of one perpetual (premiumIndex). */
export interface FundingNow {
  symbol: string
  markPrice: number
  /** rate of the funding event now accruing, fraction per event (0.0001 = 0.01 %) */
  fundingRate: number
  nextFundingTimeMs: number
  timeMs: number
}

export interface OpenInterest {
  symbol: string
  /** open interest in contracts (base coin) */
  contracts: number
  timeMs: number
}

export interface BinanceClientOptions {
  spotUrl: string
  futuresUrl: string
  timeoutMs: number
}

type CcxtModule = typeof import('ccxt')

export class BinanceClient {
  private exchange: Promise<{ ex: CcxtBinance; ccxt: CcxtModule }> | null = null

  constructor(private readonly opts: BinanceClientOptions) {}

  /** Every USDT-quoted spot market with a price (spot first: the primary price source). */
  async spotTickers(): Promise<Ticker24h[]> {
    const body = await this.call(SPOT_SOURCE, ex => ex.publicGetTicker24hr())
    return parseBody(SPOT_SOURCE, body, b => parseTickers(b))
  }

  /** Every USDT-margined perpetual with a price (fallback for coins not on spot). */
  async futuresTickers(): Promise<Ticker24h[]> {
    const body = await this.call(FUTURES_SOURCE, ex => ex.fapiPublicGetTicker24hr())
    return parseBody(FUTURES_SOURCE, body, b => parseTickers(b))
  }

  /** Mark price and current funding rate of every USDT-M perpetual. */
  async premiumIndex(): Promise<FundingNow[]> {
    const body = await this.call(FUTURES_SOURCE, ex => ex.fapiPublicGetPremiumIndex())
    return parseBody(FUTURES_SOURCE, body, parsePremiumIndex)
  }

  async openInterest(symbol: string): Promise<OpenInterest> {
    const body = await this.call(FUTURES_SOURCE, ex => ex.fapiPublicGetOpenInterest({ symbol }))
    return parseBody(FUTURES_SOURCE, body, b => {
      const o = record(b, '')
      return { symbol: str(o.symbol, 'symbol'), contracts: num(o.openInterest, 'openInterest'), timeMs: num(o.time, 'time') }
    })
  }

  /** Load ccxt now (it takes ~0.3 s or more) so the first request does not spend its budget on it. */
  warm(): void {
    this.instance().catch(() => {})
  }

  private instance(): Promise<{ ex: CcxtBinance; ccxt: CcxtModule }> {
    this.exchange ??= import('ccxt').then(ccxt => {
      const ex = new ccxt.binance({ timeout: this.opts.timeoutMs, enableRateLimit: false })
      // point the raw endpoints at the configured hosts (tests: 127.0.0.1)
      ex.urls['api'] = {
        ...(ex.urls['api'] as Record<string, string>),
        public: `${this.opts.spotUrl}/api/v3`,
        fapiPublic: `${this.opts.futuresUrl}/fapi/v1`,
      }
      return { ex, ccxt }
    })
    return this.exchange
  }

  /** Run one ccxt call with a hard deadline and map its errors to UpstreamError. */
  private async call(source: string, fn: (ex: CcxtBinance) => Promise<unknown>): Promise<unknown> {
    const { ex, ccxt } = await this.instance()
    let timer: ReturnType<typeof setTimeout> | undefined
    // ccxt's own timeout covers the headers only; a body that stalls is cut here
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UpstreamError(source, 'timeout', `no complete answer within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs + 50)
    })
    try {
      return await Promise.race([fn(ex), deadline])
    } catch (e) {
      throw mapCcxtError(source, e, ccxt)
    } finally {
      clearTimeout(timer)
    }
  }
}

function mapCcxtError(source: string, e: unknown, ccxt: CcxtModule): UpstreamError {
  if (e instanceof UpstreamError) return e
  const message = (e as Error)?.message ?? String(e)
  const status = /\s([1-5]\d\d)\s/.exec(message)?.[1]
  const httpStatus = status ? Number(status) : null
  if (e instanceof ccxt.RequestTimeout) return new UpstreamError(source, 'timeout', message)
  // DDoSProtection is ccxt's class for 429 and 418 (IP ban) answers
  if (e instanceof ccxt.RateLimitExceeded || e instanceof ccxt.DDoSProtection) return new UpstreamError(source, 'rate_limited', message, httpStatus)
  if (e instanceof ccxt.ExchangeNotAvailable) return new UpstreamError(source, 'http_status', message, httpStatus)
  if (e instanceof ccxt.NetworkError) return new UpstreamError(source, 'network', message)
  if (e instanceof ccxt.BaseError) return new UpstreamError(source, 'http_status', message, httpStatus)
  return new UpstreamError(source, 'network', message)
}

/**
 * Binance /api/v3/ticker/24hr and /fapi/v1/ticker/24hr: arrays of objects with string
 * numbers. Keeps USDT-quoted markets that traded (a delisted pair reports price 0).
 */
export function parseTickers(body: unknown): Ticker24h[] {
  const out: Ticker24h[] = []
  list(body, '').forEach((item, i) => {
    const o = record(item, `[${i}]`)
    const symbol = str(o.symbol, `[${i}].symbol`)
    if (!symbol.endsWith('USDT')) return
    const price = num(o.lastPrice, `[${i}].lastPrice`)
    if (!(price > 0)) return
    out.push({
      symbol,
      price,
      changePct: num(o.priceChangePercent, `[${i}].priceChangePercent`),
      quoteVolume: num(o.quoteVolume, `[${i}].quoteVolume`),
      closeTimeMs: num(o.closeTime, `[${i}].closeTime`),
    })
  })
  return out
}

/** /fapi/v1/premiumIndex without a symbol: one object per contract; dated futures (no funding) are skipped. */
export function parsePremiumIndex(body: unknown): FundingNow[] {
  const out: FundingNow[] = []
  list(body, '').forEach((item, i) => {
    const o = record(item, `[${i}]`)
    const symbol = str(o.symbol, `[${i}].symbol`)
    // delivery contracts (BTCUSDT_261225) carry an empty lastFundingRate
    if (!symbol.endsWith('USDT') || symbol.includes('_') || o.lastFundingRate === '') return
    out.push({
      symbol,
      markPrice: num(o.markPrice, `[${i}].markPrice`),
      fundingRate: num(o.lastFundingRate, `[${i}].lastFundingRate`),
      nextFundingTimeMs: num(o.nextFundingTime, `[${i}].nextFundingTime`),
      timeMs: num(o.time, `[${i}].time`),
    })
  })
  return out
}
