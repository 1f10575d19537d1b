/**
 * `data market-caps --coingecko`: the store's coins' daily market caps from CoinGecko's
 * `market_chart`, for the rank history (docs/data.md, "Rank history"). Each store symbol is
 * matched to the largest coin CoinGecko lists with its base ticker (/coins/markets, by
 * market cap); a coin CoinGecko does not list keeps no market cap and is ranked by its
 * volume. CoinGecko's daily point at 00:00 UTC of day d + 1 is the cap at the end of day d,
 * and is stored dated d (as a CSV row of day d is); the point of the current instant is
 * left out (its day has not ended). A day CoinGecko skips stays without a cap (that coin
 * is ranked by volume that day). Requests go one after another, `pauseMs` apart, within
 * the public API's rate limit.
 */
import type { CandleStore } from './candle-store'
import type { CoinGeckoClient } from '../upstream/coingecko'
import { DAY_MS } from '../time'

export interface CoinGeckoCapsOptions {
  /** days of history to ask for (CoinGecko's `days`) */
  days: number
  /** at most this many pages of /coins/markets (250 coins each) to match symbols */
  pages?: number
  /** wait between requests (ms) */
  pauseMs?: number
  log?: (line: string) => void
  sleep?: (ms: number) => Promise<void>
}

export interface CoinGeckoCapsReport {
  matched: number
  unmatched: string[]
  appended: number
  failed: { symbol: string; error: string }[]
}

/** The CoinGecko id of each store symbol's base: the largest listed coin with that ticker. */
export async function coinGeckoIds(client: CoinGeckoClient, symbols: readonly string[], pages: number): Promise<Map<string, string>> {
  const wanted = new Map(symbols.map(s => [s.replace(/USDT$/, ''), s]))
  const ids = new Map<string, string>()
  for (let page = 1; page <= pages && ids.size < wanted.size; page++) {
    const coins = await client.markets(page)
    for (const c of coins) {
      const symbol = wanted.get(c.symbol)
      if (symbol && !ids.has(symbol)) ids.set(symbol, c.id)
    }
    if (coins.length === 0) break
  }
  return ids
}

/** Daily caps from CoinGecko's points: the 00:00 UTC point of day d + 1 dated d; other instants left out. */
export function dailyCaps(points: { t: number[]; cap: number[] }): { t: number[]; cap: number[] } {
  const t: number[] = [], cap: number[] = []
  for (let i = 0; i < points.t.length; i++) {
    const ms = points.t[i]
    if (ms % DAY_MS !== 0) continue
    const day = ms - DAY_MS
    if (t.length && day <= t[t.length - 1]) continue
    t.push(day)
    cap.push(points.cap[i])
  }
  return { t, cap }
}

export async function fetchCoinGeckoMarketCaps(client: CoinGeckoClient, store: CandleStore, opts: CoinGeckoCapsOptions): Promise<CoinGeckoCapsReport> {
  const log = opts.log ?? (() => {})
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>(r => setTimeout(r, ms)))
  const symbols = store.symbols()
  const ids = await coinGeckoIds(client, symbols, opts.pages ?? 4)
  const report: CoinGeckoCapsReport = { matched: ids.size, unmatched: symbols.filter(s => !ids.has(s)), appended: 0, failed: [] }
  for (const [symbol, id] of ids) {
    if (opts.pauseMs) await sleep(opts.pauseMs)
    try {
      const caps = dailyCaps(await client.marketCapHistory(id, opts.days))
      const res = store.appendMarketCaps(symbol, caps.t, caps.cap, caps.t.length)
      report.appended += res.appended
      log(`${symbol} (${id}): ${res.appended} days`)
    } catch (e) {
      report.failed.push({ symbol, error: (e as Error).message })
      log(`${symbol} (${id}): ERROR ${(e as Error).message}`)
    }
  }
  return report
}
