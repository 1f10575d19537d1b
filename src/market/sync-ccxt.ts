/**
 * `data sync`: incremental, resumable sync of 1H candles and funding history from
 * Binance USDⓈ-M through ccxt.
 *
 * Per symbol, candles are paged forward from the store's last candle + 1h (else from
 * `since`, else from the market's listing) and appended page by page, so an interrupted
 * sync resumes where it stopped; the candle still open (close time > now) is never
 * stored. Funding events follow the same way from the last stored event. Requests go
 * through ccxt's rate limiter; 429/418 and network failures are retried after
 * Retry-After or a doubling back-off, and a failure that outlives its retries stops the
 * sync (the exchange is unreachable or banning us: hammering it would make that worse).
 * With `derivatives`, each symbol's 1h premium-index klines (kept at their close as the
 * premium index, like `data import`'s) and its hourly open interest follow the same way;
 * Binance serves open-interest history for the last 30 days only, so older hours stay
 * empty unless the metrics files are imported (docs/data.md).
 * With `brackets` (and an API key: Binance signs that endpoint), the leverage brackets of
 * the synced symbols follow once, after the symbols, as a new bracket snapshot.
 */
import type { CandleStore } from './candle-store'
import { baseOf, classifySymbol } from './import-classify'
import { candleProblem, isoOf } from './import-csv'
import { metaForCandles } from './import-universe'
import { parseLeverageTiers } from './leverage-tiers'
import { createBinanceUsdm, isTransient, SyncError, withRetry, type ApiCredentials, type ExchangeLike, type MarketLike, type RetryPolicy } from './sync-exchange'
import type { AssetClass, CoinMeta } from './types'
import { HOUR_MS, MINUTE_MS, parseDay } from '../time'

export { SyncError } from './sync-exchange'

export interface SyncOptions {
  /** store symbols (BTCUSDT; BTC and BTC/USDT:USDT are accepted too); default: see module docs */
  symbols?: string[]
  /** YYYY-MM-DD (UTC): where symbols without stored candles start; default their listing */
  since?: string
  /** a ccxt binanceusdm instance (or anything with the same methods); default: a new one */
  exchange?: any
  /** Binance futures API origin instead of https://fapi.binance.com (tests: a loopback server) */
  baseUrl?: string
  log?: (line: string) => void
  /** the clock that decides which candle is still open (default Date.now) */
  now?: () => number
  /** rows asked per request (default 1000, the most ccxt asks Binance for) */
  pageLimit?: number
  retry?: RetryPolicy
  /**
   * Also keep the open of each symbol's forming candle (store.setFormingOpen), asking for
   * it even when no candle has closed since the last sync: the hourly sync of a running
   * service does, so a signal of the hour that just closed has its entry price at once.
   */
  forming?: boolean
  /** one part of the sync: candles alone, funding alone or derivatives alone (default candles and funding, symbol by symbol) */
  only?: 'candles' | 'funding' | 'derivatives'
  /** also the premium index and open interest (the fields basis and open_interest of conditions) */
  derivatives?: boolean
  /**
   * also the 1h mark-price candles (liquidation is tested on them: docs/metrics.md §1 "Mark
   * price"); 'stored': only for the symbols that already have some (the hourly sync of a
   * running service keeps them in step, with its candles)
   */
  mark?: boolean | 'stored'
  /** false: keep the markets a reused `exchange` loaded before (default: load them afresh) */
  reloadMarkets?: boolean
  /**
   * '1m': also bring the symbols' minute detail (detail-store.ts), after their candles and
   * funding: from the last stored minute, else `since`, else the symbol's first stored candle
   */
  detail?: '1m'
  /**
   * also the symbols' leverage brackets (GET /fapi/v1/leverageBracket through ccxt's
   * fetchLeverageTiers), stored as a new `sync` bracket snapshot; needs `credentials`
   */
  brackets?: boolean
  /** the API key the signed endpoints (the brackets) need; read-only is enough */
  credentials?: ApiCredentials
}

/** What the brackets part of a sync did (null when it was not asked). */
export interface BracketSyncResult {
  /** symbols whose brackets were stored */
  symbols: number
  /** the snapshot's file name under brackets/, null when nothing was stored */
  snapshot: string | null
  /** synced symbols whose brackets break a rule (refused alone, as an import refuses them), or why the request failed */
  errors: { key: string; reason: string }[]
  /** synced symbols the exchange gave no brackets for (a closed market has none): they keep what the store had */
  missing: string[]
}

export interface SyncSymbolResult {
  symbol: string
  candlesAppended: number
  fundingAppended: number
  /** minutes of detail appended (with `detail`) */
  detailAppended: number
  /** premium-index and open-interest samples appended (derivatives) */
  premiumAppended: number
  openInterestAppended: number
  /** 1h mark-price candles appended (with `mark`) */
  markAppended: number
  /** newest stored candle after the sync (open time, ms) */
  lastCandleMs: number | null
  requests: number
  error: string | null
}

export interface SyncReport {
  exchange: string
  symbols: SyncSymbolResult[]
  candlesAppended: number
  fundingAppended: number
  detailAppended: number
  /** premium-index plus open-interest samples appended */
  samplesAppended: number
  /** mark-price candles appended */
  markAppended: number
  brackets: BracketSyncResult | null
  requests: number
  /** requests repeated after a rate-limit or network failure */
  retries: number
  /** symbols with an error */
  failed: number
  /** true when a lasting network failure stopped the sync before every symbol was done */
  stopped: boolean
  elapsedMs: number
}

/** where Binance USDⓈ-M history begins (BTCUSDT listed 2019-09-08) */
const BINANCE_USDM_START_MS = Date.UTC(2019, 8, 1)
const DEFAULT_PAGE = 1000

export async function syncFromExchange(store: CandleStore, opts: SyncOptions = {}): Promise<SyncReport> {
  const t0 = performance.now()
  const log = opts.log ?? (() => {})
  const now = opts.now ?? Date.now
  // ccxt never asks Binance for more than 1000 rows; a larger page would look like the end
  const pageLimit = Math.min(opts.pageLimit ?? DEFAULT_PAGE, DEFAULT_PAGE)
  const sinceMs = parseSince(opts.since)
  if (store.isSynthetic())
    throw new SyncError('the store holds synthetic data; real candles cannot continue synthetic ones. Sync into an empty DATA_DIR (or wipe the store) first')
  if (opts.brackets && !opts.credentials && !opts.exchange)
    throw new SyncError('leverage brackets come from a signed Binance endpoint (/fapi/v1/leverageBracket): give an API key (BINANCE_API_KEY and BINANCE_API_SECRET; read-only is enough), or import a fetchLeverageTiers JSON file')
  const exchange: ExchangeLike = opts.exchange ?? (await createBinanceUsdm(opts.baseUrl, opts.credentials))
  let requests = 0, retries = 0
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    requests++
    return withRetry(exchange, fn, opts.retry ?? {}, (waitMs, e) => {
      retries++
      log(`${what}: ${e.message.slice(0, 160)}; retrying in ${(waitMs / 1000).toFixed(1)} s`)
    })
  }

  // reload: ccxt keeps a failed load's rejected promise, so a retry must ask afresh
  if (opts.reloadMarkets !== false || !exchange.markets) await call('load markets', () => exchange.loadMarkets(true))
  const symbols = opts.symbols?.length ? [...new Set(opts.symbols.map(normaliseSymbol))] : store.symbols().length ? store.symbols() : listedPerpetuals(exchange)
  log(`syncing ${symbols.length} symbols from ${exchange.id}`)

  const derivatives = opts.only === 'derivatives' || (opts.derivatives === true && opts.only === undefined)
  const ctx: PageContext = { exchange, call, now, pageLimit, sinceMs, forming: opts.forming ?? false, only: opts.only, detail: opts.detail, derivatives, mark: opts.only === undefined || opts.only === 'candles' ? (opts.mark ?? false) : false }
  const results: SyncSymbolResult[] = []
  let stopped = false
  for (const symbol of symbols) {
    if (stopped) {
      results.push({ ...emptyResult(store, symbol), error: 'not synced: the sync stopped after a network failure' })
      continue
    }
    const before = requests
    const { result, fatal } = await syncSymbol(store, symbol, ctx)
    result.requests = requests - before
    results.push(result)
    stopped = fatal
    log(`${symbol}: ${result.candlesAppended} candles, ${result.fundingAppended} funding events` +
      (result.lastCandleMs !== null ? `, up to ${isoOf(result.lastCandleMs)}` : '') + (result.error ? `; ERROR ${result.error}` : ''))
  }
  let brackets: BracketSyncResult | null = null
  if (opts.brackets && !stopped) {
    try {
      brackets = await syncBrackets(store, exchange, symbols, call, now)
      log(`brackets: ${brackets.symbols} symbols${brackets.snapshot ? ` (snapshot ${brackets.snapshot})` : ''}${brackets.errors.length ? `; ${brackets.errors.length} refused` : ''}${brackets.missing.length ? `; none given for ${brackets.missing.join(', ')}` : ''}`)
    } catch (e) {
      brackets = { symbols: 0, snapshot: null, errors: [{ key: 'brackets', reason: (e as Error).message }], missing: [] }
      log(`brackets: ERROR ${(e as Error).message}`)
    }
  }
  return {
    exchange: exchange.id,
    symbols: results,
    candlesAppended: results.reduce((s, r) => s + r.candlesAppended, 0),
    fundingAppended: results.reduce((s, r) => s + r.fundingAppended, 0),
    detailAppended: results.reduce((s, r) => s + r.detailAppended, 0),
    samplesAppended: results.reduce((s, r) => s + r.premiumAppended + r.openInterestAppended, 0),
    markAppended: results.reduce((s, r) => s + r.markAppended, 0),
    brackets,
    requests,
    retries,
    failed: results.filter(r => r.error).length,
    stopped,
    elapsedMs: performance.now() - t0,
  }
}

/**
 * One request for every symbol's brackets (Binance answers them all at once), parsed as an
 * import of the same tiers is (leverage-tiers.ts); the synced symbols' become a snapshot.
 */
async function syncBrackets(store: CandleStore, exchange: ExchangeLike, symbols: string[], call: <T>(what: string, fn: () => Promise<T>) => Promise<T>, now: () => number): Promise<BracketSyncResult> {
  const fetchTiers = exchange.fetchLeverageTiers?.bind(exchange)
  if (!fetchTiers) throw new SyncError(`${exchange.id} has no leverage brackets`)
  const parsed = parseLeverageTiers(await call('leverage brackets', () => fetchTiers()))
  const wanted = new Set(symbols)
  const kept = Object.fromEntries(Object.entries(parsed.brackets).filter(([symbol]) => wanted.has(symbol)))
  const errors = parsed.errors.filter(e => {
    const m = /^([A-Z0-9]+)\/USDT:USDT$/.exec(e.key)
    return m !== null && wanted.has(`${m[1]}USDT`)
  })
  const missing = symbols.filter(symbol => !(symbol in kept) && !errors.some(e => e.key === `${symbol.slice(0, -4)}/USDT:USDT`))
  const n = Object.keys(kept).length
  const snapshot = n > 0 ? store.addBrackets({ asOfMs: now(), source: 'ccxt', brackets: kept }) : null
  return { symbols: n, snapshot, errors, missing }
}

function emptyResult(store: CandleStore, symbol: string): SyncSymbolResult {
  return { symbol, candlesAppended: 0, fundingAppended: 0, detailAppended: 0, premiumAppended: 0, openInterestAppended: 0, markAppended: 0, lastCandleMs: store.lastCandleMs(symbol), requests: 0, error: null }
}

/** Candles then funding of one symbol; `fatal` when the failure means the exchange is out of reach. */
async function syncSymbol(store: CandleStore, symbol: string, ctx: PageContext): Promise<{ result: SyncSymbolResult; fatal: boolean }> {
  const result = emptyResult(store, symbol)
  const market = perpetualOf(ctx.exchange, symbol)
  if (!market) return { result: { ...result, error: `not a USDT perpetual on ${ctx.exchange.id}` }, fatal: false }
  let fatal = false
  try {
    if (ctx.only === undefined || ctx.only === 'candles') await syncCandles(store, market, symbol, result, ctx)
    if (ctx.only === undefined || ctx.only === 'funding') await syncFunding(store, market, symbol, result, ctx)
    if (ctx.derivatives) {
      await syncPremiumIndex(store, market, symbol, result, ctx)
      await syncOpenInterest(store, market, symbol, result, ctx)
    }
    if (ctx.mark === true || (ctx.mark === 'stored' && store.mark(symbol))) await syncMark(store, market, symbol, result, ctx)
    if (ctx.detail === '1m') await syncDetail(store, market, symbol, result, ctx)
  } catch (e) {
    result.error = (e as Error).message
    fatal = e instanceof SyncError || (await isTransient(e))
  } finally {
    result.lastCandleMs = store.lastCandleMs(symbol)
    recordMeta(store, market, symbol, result)
    // the exchange lists the market as closed (Binance: status SETTLING or CLOSE): its
    // candles end here; the coin stays, delisted (docs/data.md, "Delisted coins")
    if (market.active === false && result.lastCandleMs !== null && store.meta(symbol)?.status !== 'delisted') store.markDelisted(symbol)
  }
  return { result, fatal }
}

interface PageContext {
  exchange: ExchangeLike
  call: <T>(what: string, fn: () => Promise<T>) => Promise<T>
  now: () => number
  pageLimit: number
  sinceMs: number | null
  forming: boolean
  only: SyncOptions['only']
  detail?: '1m'
  derivatives: boolean
  mark: boolean | 'stored'
}

async function syncCandles(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const last = store.lastCandleMs(symbol)
  let since = last !== null ? last + HOUR_MS : ceilHour(ctx.sinceMs ?? market.created ?? BINANCE_USDM_START_MS)
  for (;;) {
    // a candle opening at `since` can only be complete an hour later; then only the forming one is worth asking for
    const wantsForming = ctx.forming && since <= ctx.now() && last !== null && !store.formingOpen(symbol)
    if (since + HOUR_MS > ctx.now() && !wantsForming) return
    const from = since
    // no more rows than can exist (the forming candle included): Binance weighs a request of
    // up to 99 rows 1, of up to 1000 rows 5, so the hourly sync of a live store stays cheap
    const limit = Math.min(ctx.pageLimit, Math.floor((ctx.now() - from) / HOUR_MS) + 1)
    const rows = await ctx.call(`${symbol} candles from ${isoOf(from)}`, () => ctx.exchange.fetchOHLCV(market.symbol, '1h', from, limit))
    const nowMs = ctx.now()
    const cols = Array.from({ length: 6 }, () => new Float64Array(rows.length))
    let n = 0
    let forming: { t: number; o: number } | null = null
    let sawOpen = false
    for (const row of rows) {
      const [t, o, h, l, c, v] = row as number[]
      if (!(t >= since)) continue
      if (t + HOUR_MS > nowMs) {
        // the candle still open: never stored; its open is kept when it follows the stored ones
        if (t === (n > 0 ? cols[0][n - 1] : since - HOUR_MS) + HOUR_MS && t <= nowMs && o > 0 && Number.isFinite(o)) forming = { t, o }
        sawOpen = true
        break
      }
      if (t % HOUR_MS !== 0 || (n > 0 && t <= cols[0][n - 1])) throw new Error(`${symbol}: the exchange sent a candle at ${isoOf(t)} out of order`)
      const problem = candleProblem(o, h, l, c, v)
      if (problem) throw new Error(`${symbol}: the exchange sent an impossible candle at ${isoOf(t)}: ${problem}`)
      cols[0][n] = t; cols[1][n] = o; cols[2][n] = h; cols[3][n] = l; cols[4][n] = c; cols[5][n] = v
      n++
    }
    if (n > 0) result.candlesAppended += store.appendCandles(symbol, cols.map(col => col.subarray(0, n)), n).appended
    if (forming && ctx.forming && store.lastCandleMs(symbol) === forming.t - HOUR_MS) store.setFormingOpen(symbol, forming.t, forming.o)
    if (sawOpen || rows.length < limit || n === 0) return
    since = cols[0][n - 1] + HOUR_MS
  }
}

/**
 * A symbol's 1m candles as its minute detail, paged forward like the candles: only
 * closed minutes, each checked like a candle, appended page by page (resumable).
 */
async function syncDetail(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const last = store.detail.lastMinuteMs(symbol)
  const firstCandle = store.bars(symbol)?.t[0]
  let since = last !== null ? last + MINUTE_MS : Math.ceil((ctx.sinceMs ?? firstCandle ?? market.created ?? BINANCE_USDM_START_MS) / MINUTE_MS) * MINUTE_MS
  for (;;) {
    if (since + MINUTE_MS > ctx.now()) return
    const from = since
    const limit = Math.min(ctx.pageLimit, Math.floor((ctx.now() - from) / MINUTE_MS) + 1)
    const rows = await ctx.call(`${symbol} 1m detail from ${isoOf(from)}`, () => ctx.exchange.fetchOHLCV(market.symbol, '1m', from, limit))
    const nowMs = ctx.now()
    const cols = Array.from({ length: 6 }, () => new Float64Array(rows.length))
    let n = 0
    let sawOpen = false
    for (const row of rows) {
      const [t, o, h, l, c, v] = row as number[]
      if (!(t >= since)) continue
      if (t + MINUTE_MS > nowMs) {
        sawOpen = true // the minute still open: never stored
        break
      }
      if (t % MINUTE_MS !== 0 || (n > 0 && t <= cols[0][n - 1])) throw new Error(`${symbol}: the exchange sent a 1m candle at ${isoOf(t)} out of order`)
      const problem = candleProblem(o, h, l, c, v)
      if (problem) throw new Error(`${symbol}: the exchange sent an impossible 1m candle at ${isoOf(t)}: ${problem}`)
      cols[0][n] = t; cols[1][n] = o; cols[2][n] = h; cols[3][n] = l; cols[4][n] = c; cols[5][n] = v
      n++
    }
    if (n > 0) result.detailAppended += store.appendDetail(symbol, cols.map(col => col.subarray(0, n)), n).appended
    if (sawOpen || rows.length < limit || n === 0) return
    since = cols[0][n - 1] + MINUTE_MS
  }
}

async function syncFunding(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const stored = store.funding(symbol)
  const firstCandle = store.bars(symbol)?.t[0]
  let since = stored && stored.n > 0 ? stored.t[stored.n - 1] + 1 : (ctx.sinceMs ?? firstCandle ?? market.created ?? BINANCE_USDM_START_MS)
  for (;;) {
    if (since > ctx.now()) return
    const from = since
    const rows = await ctx.call(`${symbol} funding from ${isoOf(from)}`, () => ctx.exchange.fetchFundingRateHistory(market.symbol, from, ctx.pageLimit))
    const nowMs = ctx.now()
    const t = new Float64Array(rows.length), rate = new Float64Array(rows.length)
    let n = 0
    for (const r of rows) {
      const tMs = r.timestamp, x = r.fundingRate
      if (tMs === undefined || !(tMs >= since) || tMs > nowMs) continue
      if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`${symbol}: the exchange sent funding without a rate at ${isoOf(tMs)}`)
      if (n > 0 && tMs <= t[n - 1]) continue
      t[n] = tMs
      rate[n] = x
      n++
    }
    if (n > 0) result.fundingAppended += store.appendFunding(symbol, t.subarray(0, n), rate.subarray(0, n), n).appended
    if (rows.length < ctx.pageLimit || n === 0) return
    since = t[n - 1] + 1
  }
}

/** The 1h mark-price klines from the last stored one on (or the symbol's first candle): closed hours only, each checked like a candle. */
async function syncMark(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const fetch = ctx.exchange.fetchMarkOHLCV?.bind(ctx.exchange)
  if (!fetch) throw new SyncError(`${ctx.exchange.id} offers no mark-price klines`)
  const stored = store.mark(symbol)
  const firstCandle = store.bars(symbol)?.t[0]
  let since = stored ? stored.t[stored.n - 1] + HOUR_MS : ceilHour(ctx.sinceMs ?? firstCandle ?? market.created ?? BINANCE_USDM_START_MS)
  for (;;) {
    if (since + HOUR_MS > ctx.now()) return
    const from = since
    const limit = Math.min(ctx.pageLimit, Math.floor((ctx.now() - from) / HOUR_MS) + 1)
    const rows = await ctx.call(`${symbol} mark price from ${isoOf(from)}`, () => fetch(market.symbol, '1h', from, limit))
    const nowMs = ctx.now()
    const cols = Array.from({ length: 5 }, () => new Float64Array(rows.length))
    let n = 0
    let sawOpen = false
    for (const row of rows) {
      const [t, o, h, l, c] = row as number[]
      if (!(t >= since)) continue
      if (t + HOUR_MS > nowMs) {
        sawOpen = true // the hour still open: its mark candle is not final
        break
      }
      if (t % HOUR_MS !== 0 || (n > 0 && t <= cols[0][n - 1])) throw new Error(`${symbol}: the exchange sent a mark-price kline at ${isoOf(t)} out of order`)
      // the mark does not trade: its klines carry no volume, so the candle check sees a zero one
      const problem = candleProblem(o, h, l, c, 0)
      if (problem) throw new Error(`${symbol}: the exchange sent an impossible mark-price kline at ${isoOf(t)}: ${problem}`)
      cols[0][n] = t; cols[1][n] = o; cols[2][n] = h; cols[3][n] = l; cols[4][n] = c
      n++
    }
    if (n > 0) result.markAppended += store.appendMark(symbol, cols.map(col => col.subarray(0, n)), n).appended
    if (sawOpen || rows.length < limit || n === 0) return
    since = cols[0][n - 1] + HOUR_MS
  }
}

/** The premium index's 1h klines from the last stored one on: each close kept at open + 1h (when it is known). */
async function syncPremiumIndex(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const fetch = ctx.exchange.fetchPremiumIndexOHLCV?.bind(ctx.exchange)
  if (!fetch) throw new SyncError(`${ctx.exchange.id} offers no premium-index klines`)
  const stored = store.samples('premium_index', symbol)
  const firstCandle = store.bars(symbol)?.t[0]
  // stored times are closes: the next kline opens at the last close
  let since = stored && stored.n > 0 ? stored.t[stored.n - 1] : ceilHour(ctx.sinceMs ?? firstCandle ?? market.created ?? BINANCE_USDM_START_MS)
  for (;;) {
    if (since + HOUR_MS > ctx.now()) return
    const from = since
    const limit = Math.min(ctx.pageLimit, Math.floor((ctx.now() - from) / HOUR_MS) + 1)
    const rows = await ctx.call(`${symbol} premium index from ${isoOf(from)}`, () => fetch(market.symbol, '1h', from, limit))
    const nowMs = ctx.now()
    const t = new Float64Array(rows.length), value = new Float64Array(rows.length)
    let n = 0
    let sawOpen = false
    for (const row of rows) {
      const [open, , , , close] = row as number[]
      if (!(open >= since)) continue
      if (open + HOUR_MS > nowMs) {
        sawOpen = true // the kline still open: its close is not known yet
        break
      }
      if (open % HOUR_MS !== 0 || (n > 0 && open + HOUR_MS <= t[n - 1])) throw new Error(`${symbol}: the exchange sent a premium-index kline at ${isoOf(open)} out of order`)
      if (typeof close !== 'number' || !(Math.abs(close) < 1)) throw new Error(`${symbol}: the exchange sent a premium index ${close} at ${isoOf(open)}, not a fraction`)
      t[n] = open + HOUR_MS
      value[n] = close
      n++
    }
    if (n > 0) result.premiumAppended += store.appendSamples('premium_index', symbol, t.subarray(0, n), value.subarray(0, n), n).appended
    if (sawOpen || rows.length < limit || n === 0) return
    since = t[n - 1]
  }
}

/** Binance keeps open-interest history this long; older hours are not asked for */
const OPEN_INTEREST_HISTORY_MS = 29 * 24 * HOUR_MS
/** Binance's page of open-interest history */
const OPEN_INTEREST_PAGE = 500

/** Hourly open interest from the last stored sample on (within the 30 days Binance keeps). */
async function syncOpenInterest(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult, ctx: PageContext): Promise<void> {
  const fetch = ctx.exchange.fetchOpenInterestHistory?.bind(ctx.exchange)
  if (!fetch) throw new SyncError(`${ctx.exchange.id} offers no open-interest history`)
  const stored = store.samples('open_interest', symbol)
  const oldest = ceilHour(ctx.now() - OPEN_INTEREST_HISTORY_MS)
  let since = Math.max(stored && stored.n > 0 ? stored.t[stored.n - 1] + 1 : ceilHour(ctx.sinceMs ?? BINANCE_USDM_START_MS), oldest)
  const limit = Math.min(ctx.pageLimit, OPEN_INTEREST_PAGE)
  for (;;) {
    if (since > ctx.now()) return
    const from = since
    const until = Math.min(from + limit * HOUR_MS - 1, ctx.now())
    const rows = await ctx.call(`${symbol} open interest from ${isoOf(from)}`, () => fetch(market.symbol, '1h', from, limit, { until }))
    const nowMs = ctx.now()
    const t = new Float64Array(rows.length), value = new Float64Array(rows.length)
    let n = 0
    for (const r of rows) {
      const tMs = r.timestamp, x = r.openInterestAmount
      if (tMs === undefined || !(tMs >= since) || tMs > nowMs) continue
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new Error(`${symbol}: the exchange sent open interest ${x} at ${isoOf(tMs)}`)
      if (n > 0 && tMs <= t[n - 1]) continue
      t[n] = tMs
      value[n] = x
      n++
    }
    if (n > 0) result.openInterestAppended += store.appendSamples('open_interest', symbol, t.subarray(0, n), value.subarray(0, n), n).appended
    // the page is a window of time: an empty or short one is not the end while the window lies before now
    if (until >= ctx.now()) return
    since = until + 1
  }
}

function parseSince(since: string | undefined): number | null {
  if (since === undefined) return null
  const tMs = parseDay(since)
  if (tMs === null) throw new SyncError(`since ${JSON.stringify(since)}: expected a date YYYY-MM-DD`)
  return tMs
}

function ceilHour(tMs: number): number {
  return Math.ceil(tMs / HOUR_MS) * HOUR_MS
}

/** BTC, btcusdt, BTC/USDT:USDT → BTCUSDT */
export function normaliseSymbol(raw: string): string {
  const s = raw.trim().toUpperCase().replace(/:USDT$/, '').replace('/', '')
  return s.endsWith('USDT') ? s : `${s}USDT`
}

function isUsdtPerpetual(m: MarketLike): boolean {
  return m.swap && m.linear !== false && m.quote === 'USDT' && (m.settle ?? 'USDT') === 'USDT' && /^[A-Z0-9]+USDT$/.test(m.id)
}

/** the exchange's active USDT perpetuals, in the order it lists them */
function listedPerpetuals(exchange: ExchangeLike): string[] {
  return Object.values(exchange.markets ?? {}).filter(m => isUsdtPerpetual(m) && m.active !== false).map(m => m.id)
}

/** the perpetual behind a store symbol (also when it is no longer trading: its history remains) */
function perpetualOf(exchange: ExchangeLike, symbol: string): MarketLike | undefined {
  return exchange.markets_by_id?.[symbol]?.find(isUsdtPerpetual)
}

/** Binance tags non-crypto perps in exchangeInfo's underlyingType */
function assetClassFromMarket(m: MarketLike): AssetClass | null {
  const u = String(m.info?.underlyingType ?? '').toUpperCase()
  if (u === 'INDEX') return 'index'
  if (u === 'COMMODITY') return 'commodity'
  if (u === 'EQUITY' || u === 'STOCK') return 'stock'
  return null
}

function recordMeta(store: CandleStore, market: MarketLike, symbol: string, result: SyncSymbolResult): void {
  if (result.candlesAppended === 0 && result.fundingAppended === 0 && result.premiumAppended === 0 && result.openInterestAppended === 0) return
  const bars = store.bars(symbol)
  if (!bars || bars.n === 0) {
    store.addSource('ccxt')
    return
  }
  const existing = store.meta(symbol)
  let meta: CoinMeta = metaForCandles(symbol, existing, bars.t[0])
  if (!existing) {
    const cls = classifySymbol(symbol)
    meta = { ...meta, name: market.base || baseOf(symbol), assetClass: cls.assetClass !== 'crypto' ? cls.assetClass : (assetClassFromMarket(market) ?? 'crypto') }
  }
  store.upsertMeta([meta], 'ccxt')
}

/** A human summary: one line per symbol, then totals. */
export function formatSyncReport(report: SyncReport): string {
  const lines = [`${'symbol'.padEnd(16)} ${'candles'.padStart(8)} ${'funding'.padStart(8)}  ${'last candle'.padEnd(20)} ${'requests'.padStart(8)}`]
  for (const r of report.symbols) {
    lines.push(`${r.symbol.padEnd(16)} ${String(r.candlesAppended).padStart(8)} ${String(r.fundingAppended).padStart(8)}  ${(r.lastCandleMs === null ? '-' : isoOf(r.lastCandleMs)).padEnd(20)} ${String(r.requests).padStart(8)}${r.error ? `  ERROR ${r.error}` : ''}`)
  }
  lines.push(
    '',
    `${report.exchange}: ${report.symbols.length} symbols, ${report.candlesAppended} candles${report.detailAppended > 0 ? `, ${report.detailAppended} minutes of detail` : ''} and ${report.fundingAppended} funding events appended, ` +
      (report.samplesAppended ? `${report.samplesAppended} premium-index / open-interest samples, ` : '') +
      (report.markAppended ? `${report.markAppended} mark-price candles, ` : '') +
      (report.brackets ? `brackets of ${report.brackets.symbols} symbols${report.brackets.errors.length ? ` (refused: ${report.brackets.errors.map(e => `${e.key}: ${e.reason}`).join('; ')})` : ''}${report.brackets.missing.length ? ` (none given for ${report.brackets.missing.join(', ')})` : ''}, ` : '') +
      `${report.requests} requests (${report.retries} retried), ${report.failed} failed${report.stopped ? ', stopped early' : ''} (${(report.elapsedMs / 1000).toFixed(1)} s)`,
  )
  return lines.join('\n')
}
