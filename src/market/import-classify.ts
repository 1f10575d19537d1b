/**
 * What kind of market a USDT perpetual is, judged from its base asset: stablecoins and
 * non-crypto perps must be told apart because the universe excludes them by default,
 * and neither the kline files nor the exchange's market list say so reliably.
 * The lists are public knowledge (tickers as Binance lists them), not exhaustive.
 */
import type { AssetClass } from './types'

/** USD- and EUR-pegged tokens, listed as perps against USDT */
const STABLECOINS = new Set([
  'USDC', 'FDUSD', 'TUSD', 'USDP', 'BUSD', 'DAI', 'USDE', 'USDS', 'USD1', 'PYUSD', 'RLUSD',
  'FRAX', 'USDD', 'GUSD', 'LUSD', 'SUSD', 'USDJ', 'EURI', 'AEUR', 'EURC', 'USDX', 'USDY', 'BFUSD',
])

/** metals and energy, plus tokens that are claims on them (their price is the commodity's) */
const COMMODITIES = new Set([
  'XAU', 'XAG', 'XPT', 'XPD', 'PAXG', 'XAUT', 'COPPER', 'CL', 'BZ', 'WTI', 'BRENT', 'NATGAS',
])

/** single-stock perpetuals (TradFi perps) */
const STOCKS = new Set([
  'TSLA', 'NVDA', 'AAPL', 'AMZN', 'GOOGL', 'GOOG', 'META', 'MSFT', 'MSTR', 'COIN', 'HOOD', 'CRCL',
  'PLTR', 'AMD', 'INTC', 'NFLX', 'BABA', 'ORCL', 'AVGO', 'TSM', 'UBER', 'SBET', 'BMNR', 'GME', 'AMC',
])

/** stock indices and Binance's composite index perps (BTCDOM, DEFI, …) */
const INDICES = new Set(['SPY', 'QQQ', 'SPX500', 'NDX', 'BTCDOM', 'DEFI', 'FOOTBALL', 'BLUEBIRD'])

const FOREX = new Set(['EUR', 'GBP', 'JPY', 'AUD', 'CHF', 'CAD'])

export interface MarketClass {
  stablecoin: boolean
  assetClass: AssetClass
}

/** `BTCUSDT` → `BTC`; the quote suffix is the only part dropped */
export function baseOf(symbol: string): string {
  return symbol.endsWith('USDT') ? symbol.slice(0, -4) : symbol
}

export function classifySymbol(symbol: string): MarketClass {
  const base = baseOf(symbol)
  if (STABLECOINS.has(base)) return { stablecoin: true, assetClass: 'crypto' }
  if (COMMODITIES.has(base)) return { stablecoin: false, assetClass: 'commodity' }
  if (STOCKS.has(base)) return { stablecoin: false, assetClass: 'stock' }
  if (INDICES.has(base)) return { stablecoin: false, assetClass: 'index' }
  if (FOREX.has(base)) return { stablecoin: false, assetClass: 'forex' }
  return { stablecoin: false, assetClass: 'crypto' }
}
