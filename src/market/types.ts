/**
 * Core market-data types shared by the store, the indicators and the engine.
 *
 * Units: times are epoch milliseconds (UTC) everywhere inside the process; the HTTP
 * layer converts to seconds or ISO strings. Prices are plain numbers in quote currency
 * (USDT). Funding rates are fractions per event (0.0001 = 0.01 %).
 */

/** Columnar candles of one symbol on one timeframe. `t` is the candle OPEN time in ms. */
export interface Bars {
  readonly t: Float64Array
  readonly o: Float64Array
  readonly h: Float64Array
  readonly l: Float64Array
  readonly c: Float64Array
  readonly v: Float64Array
  /** number of valid rows; every column has at least this length */
  readonly n: number
  /** bar length in ms (3_600_000 for 1H) */
  readonly stepMs: number
}

/** Funding settlements of one symbol: real event times (ms) and rates (fraction). */
export interface FundingSeries {
  readonly t: Float64Array
  readonly rate: Float64Array
  readonly n: number
}

/**
 * Derivatives data beside the candles (docs/data.md "Open interest and premium index"):
 * `premium_index` is Binance's premium index (perpetual over index price, a fraction) at
 * the close of each 1H premium-index kline; `open_interest` the open interest in contracts
 * (base coin) of each sample. `t` is the instant the value is known: a kline's close time,
 * a sample's time. Ascending.
 */
export const SAMPLE_KINDS = ['premium_index', 'open_interest'] as const
export type SampleKind = (typeof SAMPLE_KINDS)[number]

export interface SampleSeries {
  readonly t: Float64Array
  readonly value: Float64Array
  readonly n: number
}

/**
 * Mark-price candles of one symbol (Binance's `markPriceKlines`, 1H): what the exchange
 * tests liquidation against (docs/metrics.md §1 "Mark price"). `t` is the open time; no
 * volume (the mark price does not trade).
 */
export interface MarkSeries {
  readonly t: Float64Array
  readonly o: Float64Array
  readonly h: Float64Array
  readonly l: Float64Array
  readonly c: Float64Array
  readonly n: number
}

export type AssetClass = 'crypto' | 'stock' | 'commodity' | 'forex' | 'index' | 'pre-ipo'

export interface CoinMeta {
  symbol: string
  name: string
  /** market-cap rank, 1 = largest; null when unknown */
  rank: number | null
  stablecoin: boolean
  assetClass: AssetClass
  /** listing time (first candle open) in ms, null when unknown */
  listingMs: number | null
  /**
   * 'delisted': the market closed and its candles end; the coin stays in the store (and in
   * point-in-time universes of the days it traded). Missing (stores written before it
   * existed) reads as 'trading'. docs/data.md, "Delisted coins".
   */
  status?: CoinStatus
  /** a delisted coin's last candle open time (ms): its `date_to` */
  delistedMs?: number | null
}

export type CoinStatus = 'trading' | 'delisted'

/** A coin's status: stores written before the field existed hold trading coins only. */
export function statusOf(meta: CoinMeta): CoinStatus {
  return meta.status ?? 'trading'
}

/** Daily market caps of one symbol: day (UTC midnight, ms) and market cap (USD). */
export interface MarketCapSeries {
  readonly t: Float64Array
  readonly cap: Float64Array
  readonly n: number
}

/**
 * The open of the 1H candle now forming: the bar after the store's last completed one.
 * Only completed candles are stored; this one price is known the moment the hour opens
 * (an exchange's klines include the forming candle; demo mode draws it), and it is the
 * trade model's entry for a signal of the bar that just closed (docs/signals.md).
 */
export interface FormingOpen {
  /** open time in ms: the store's last candle + 1 h */
  readonly t: number
  readonly o: number
}

/**
 * One of Binance's maintenance-margin brackets of a contract (engine/margin-brackets.ts
 * prices liquidations with them; docs/metrics.md §1).
 */
export interface MarginBracket {
  /** Binance's bracket number (1 = the smallest notionals) */
  bracket: number
  /** notionals above this (USD) … */
  floorUsd: number
  /** … up to and including this */
  capUsd: number
  mmrFrac: number
  /** maintenance amount (Binance's `cum`), USD */
  cumUsd: number
  maxLeverage: number
}
