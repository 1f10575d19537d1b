/**
 * The ccxt side of `data sync`: creating Binance USDⓈ-M's client (optionally aimed at
 * another base URL, which is how tests talk to a loopback server) and retrying the calls
 * that fail for transient reasons, honouring Binance's Retry-After.
 * ccxt is imported lazily: it takes a few hundred ms to load and only sync needs it.
 */

/** The part of a ccxt exchange the sync uses (ccxt's own types are much wider). */
export interface ExchangeLike {
  id: string
  markets: Record<string, MarketLike> | undefined
  markets_by_id: Record<string, MarketLike[]> | undefined
  last_response_headers?: Record<string, string>
  loadMarkets(reload?: boolean): Promise<Record<string, MarketLike>>
  fetchOHLCV(symbol: string, timeframe: string, since?: number, limit?: number): Promise<(number | undefined)[][]>
  fetchFundingRateHistory(symbol: string, since?: number, limit?: number): Promise<{ timestamp?: number; fundingRate?: number }[]>
  /** Binance's premium-index klines (GET /fapi/v1/premiumIndexKlines), rows as fetchOHLCV's */
  fetchPremiumIndexOHLCV?(symbol: string, timeframe: string, since?: number, limit?: number): Promise<(number | undefined)[][]>
  /** Binance's mark-price klines (GET /fapi/v1/markPriceKlines: ccxt's fetchOHLCV with price 'mark'), rows as fetchOHLCV's */
  fetchMarkOHLCV?(symbol: string, timeframe: string, since?: number, limit?: number): Promise<(number | undefined)[][]>
  /** Binance's open-interest history (GET /futures/data/openInterestHist: the last 30 days only) */
  fetchOpenInterestHistory?(symbol: string, timeframe: string, since?: number, limit?: number, params?: Record<string, unknown>): Promise<{ timestamp?: number; openInterestAmount?: number }[]>
  /** Binance's leverage brackets (GET /fapi/v1/leverageBracket, a signed endpoint: needs the API key), by unified symbol */
  fetchLeverageTiers?(symbols?: string[], params?: Record<string, unknown>): Promise<Record<string, unknown[]>>
}

/** An API key of Binance USDⓈ-M (read-only is enough): the signed endpoints need one. */
export interface ApiCredentials {
  apiKey: string
  secret: string
}

export interface MarketLike {
  id: string
  symbol: string
  base: string
  quote: string
  settle?: string
  swap: boolean
  linear?: boolean
  active?: boolean
  created?: number
  info?: Record<string, unknown>
}

type Ccxt = typeof import('ccxt')
let ccxtModule: Promise<Ccxt> | undefined

export function loadCcxt(): Promise<Ccxt> {
  return (ccxtModule ??= import('ccxt'))
}

/**
 * ccxt's binanceusdm with its rate limiter on. With `baseUrl`, every API root in
 * `urls.api` (fapiPublic, fapiPublicV2, fapiPublicV3, fapiData, fapiPrivate, and the spot /
 * sapi / dapi ones it never needs here) keeps its path but moves to that origin, so no request
 * can leave for the real hosts.
 */
export async function createBinanceUsdm(baseUrl?: string, credentials?: ApiCredentials): Promise<ExchangeLike> {
  const ccxt = await loadCcxt()
  // with a key ccxt would also load the spot wallet's currencies (/sapi/v1/capital/config/getall
  // on the spot host): nothing the futures sync reads, so it is not asked
  const exchange = new ccxt.binanceusdm({ enableRateLimit: true, ...(credentials ? { ...credentials, options: { fetchCurrencies: false } } : {}) })
  if (baseUrl) retarget(exchange.urls as { api: Record<string, unknown> }, baseUrl)
  return exchange as unknown as ExchangeLike
}

function retarget(urls: { api: Record<string, unknown> }, baseUrl: string): void {
  const base = new URL(baseUrl)
  const prefix = base.origin + base.pathname.replace(/\/$/, '')
  const move = (entry: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(entry)) {
      if (typeof value === 'string') entry[key] = prefix + new URL(value).pathname
      else if (value && typeof value === 'object') move(value as Record<string, unknown>)
    }
  }
  move(urls.api)
}

export interface RetryPolicy {
  /** retries after the first attempt (default 5) */
  retries?: number
  /** first back-off when the server gives no Retry-After (default 1000 ms, doubling) */
  baseDelayMs?: number
  /** never wait longer than this for one retry; a longer Retry-After (a ban) gives up (default 120 s) */
  maxDelayMs?: number
}

export class SyncError extends Error {}

/** 429 / 418 / timeouts / connection failures: worth another try after a pause */
export async function isTransient(e: unknown): Promise<boolean> {
  const ccxt = await loadCcxt()
  return e instanceof ccxt.NetworkError && !(e instanceof ccxt.ExchangeNotAvailable && /\b40[0-5]\b/.test(String((e as Error).message)))
}

/**
 * Run `call`, retrying transient failures with back-off. `onRetry` hears about each
 * wait. Non-transient errors and exhausted retries are rethrown.
 */
export async function withRetry<T>(
  exchange: ExchangeLike,
  call: () => Promise<T>,
  policy: RetryPolicy,
  onRetry: (waitMs: number, error: Error) => void,
): Promise<T> {
  const retries = policy.retries ?? 5
  const base = policy.baseDelayMs ?? 1000
  const maxDelay = policy.maxDelayMs ?? 120_000
  for (let attempt = 0; ; attempt++) {
    try {
      return await call()
    } catch (e) {
      if (attempt >= retries || !(await isTransient(e))) throw e
      const retryAfterSec = Number(headerOf(exchange.last_response_headers, 'retry-after'))
      const waitMs = retryAfterSec > 0 ? retryAfterSec * 1000 : base * 2 ** attempt
      if (waitMs > maxDelay) throw new SyncError(`the exchange asks to wait ${Math.round(waitMs / 1000)} s (${(e as Error).message}); giving up`)
      onRetry(waitMs, e as Error)
      await Bun.sleep(waitMs)
    }
  }
}

function headerOf(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v
  return undefined
}
