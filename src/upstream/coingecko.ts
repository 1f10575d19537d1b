/**
 * CoinGecko public API v3: /global (whole-market figures), /coins/markets (per-coin
 * name, image, market cap, rank, price changes) and /coins/{id}/market_chart (a coin's
 * daily market-cap history, for the rank history: docs/data.md). The base URL includes
 * `/api/v3`.
 */
import { httpGetJson } from './http'
import { list, num, optNum, optStr, parseBody, record, str } from './shape'

export const COINGECKO_SOURCE = 'coingecko'

export interface CgGlobal {
  totalMarketCapUsd: number
  totalVolumeUsd: number
  /** BTC share of the total market cap, percent */
  btcDominancePct: number
  updatedAtMs: number
}

export interface CgCoin {
  id: string
  /** ticker in upper case, e.g. "BTC" */
  symbol: string
  name: string
  image: string | null
  priceUsd: number | null
  marketCapUsd: number | null
  rank: number | null
  volume24hUsd: number | null
  change1hPct: number | null
  change24hPct: number | null
  change7dPct: number | null
}

export interface CoinGeckoClientOptions {
  baseUrl: string
  timeoutMs: number
  /** optional demo/pro key, sent as x-cg-demo-api-key */
  apiKey?: string
}

export class CoinGeckoClient {
  constructor(private readonly opts: CoinGeckoClientOptions) {}

  async global(): Promise<CgGlobal> {
    const body = await httpGetJson(`${this.opts.baseUrl}/global`, this.http())
    return parseBody(COINGECKO_SOURCE, body, parseGlobal)
  }

  /** One page of coins in market-cap order (at most 250 a page). */
  async markets(page = 1, perPage = 250): Promise<CgCoin[]> {
    const q = new URLSearchParams({
      vs_currency: 'usd',
      order: 'market_cap_desc',
      per_page: String(perPage),
      page: String(page),
      sparkline: 'false',
      price_change_percentage: '1h,24h,7d',
    })
    const body = await httpGetJson(`${this.opts.baseUrl}/coins/markets?${q}`, this.http())
    return parseBody(COINGECKO_SOURCE, body, parseMarkets)
  }

  /**
   * A coin's market caps over the last `days` days, one point a day (`interval=daily`):
   * [time ms, USD] pairs as CoinGecko sends them (the daily points at 00:00 UTC, the last
   * one possibly the current instant); a null cap (CoinGecko has none that day) is left out.
   */
  async marketCapHistory(id: string, days: number): Promise<{ t: number[]; cap: number[] }> {
    const q = new URLSearchParams({ vs_currency: 'usd', days: String(days), interval: 'daily' })
    const body = await httpGetJson(`${this.opts.baseUrl}/coins/${encodeURIComponent(id)}/market_chart?${q}`, this.http())
    return parseBody(COINGECKO_SOURCE, body, parseMarketCapHistory)
  }

  private http() {
    return {
      source: COINGECKO_SOURCE,
      timeoutMs: this.opts.timeoutMs,
      headers: this.opts.apiKey ? { 'x-cg-demo-api-key': this.opts.apiKey } : undefined,
    }
  }
}

export function parseGlobal(body: unknown): CgGlobal {
  const data = record(record(body, '').data, 'data')
  return {
    totalMarketCapUsd: num(record(data.total_market_cap, 'data.total_market_cap').usd, 'data.total_market_cap.usd'),
    totalVolumeUsd: num(record(data.total_volume, 'data.total_volume').usd, 'data.total_volume.usd'),
    btcDominancePct: num(record(data.market_cap_percentage, 'data.market_cap_percentage').btc, 'data.market_cap_percentage.btc'),
    updatedAtMs: num(data.updated_at, 'data.updated_at') * 1000,
  }
}

export function parseMarkets(body: unknown): CgCoin[] {
  return list(body, '').map((item, i) => {
    const o = record(item, `[${i}]`)
    const p = (k: string) => `[${i}].${k}`
    const rank = optNum(o.market_cap_rank, p('market_cap_rank'))
    return {
      id: str(o.id, p('id')),
      symbol: str(o.symbol, p('symbol')).toUpperCase(),
      name: str(o.name, p('name')),
      image: optStr(o.image, p('image')),
      priceUsd: optNum(o.current_price, p('current_price')),
      marketCapUsd: optNum(o.market_cap, p('market_cap')),
      rank: rank === null ? null : Math.round(rank),
      volume24hUsd: optNum(o.total_volume, p('total_volume')),
      change1hPct: optNum(o.price_change_percentage_1h_in_currency, p('price_change_percentage_1h_in_currency')),
      change24hPct: optNum(o.price_change_percentage_24h_in_currency ?? o.price_change_percentage_24h, p('price_change_percentage_24h')),
      change7dPct: optNum(o.price_change_percentage_7d_in_currency, p('price_change_percentage_7d_in_currency')),
    }
  })
}

/** The `market_caps` of a /coins/{id}/market_chart body as times (ms) and caps (USD), nulls left out. */
export function parseMarketCapHistory(body: unknown): { t: number[]; cap: number[] } {
  const points = list(record(body, '').market_caps, 'market_caps')
  const t: number[] = [], cap: number[] = []
  points.forEach((p, i) => {
    const pair = list(p, `market_caps[${i}]`)
    const ms = num(pair[0], `market_caps[${i}][0]`)
    const value = optNum(pair[1], `market_caps[${i}][1]`)
    if (value !== null && value > 0) {
      t.push(ms)
      cap.push(value)
    }
  })
  return { t, cap }
}
