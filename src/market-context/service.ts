/**
 * MarketContext: the service behind /market, /market/live, /news, /macro, /regime and
 * /coins/stats. It knows nothing of HTTP. Each answer reads its upstream caches in
 * parallel with one wall-clock deadline (REQUEST_BUDGET_MS), fills gaps from the candle
 * store, and labels every part with its source and age.
 */
import type { Clock } from '../clock'
import type { Config } from '../config'
import type { Db } from '../db'
import type { Logger } from '../log'
import type { CandleStore } from '../market/candle-store'
import { change7d, sparkline7d } from '../market/coin-summary'
import type { Universe } from '../market/universe'
import { HOUR_MS } from '../time'
import { getStrategy } from '../strategies/registry'
import { composeCoinStats, DEFAULT_STATS_STRATEGY, type CoinStatsResponse, type StrategyFigures, type StrategyStatsFn } from './coin-stats'
import { EVENTS_FILE, loadEventsCalendar, upcomingEvents, type MacroEvent } from './events-calendar'
import { fearGreedProxy } from './fear-greed-proxy'
import { localLabel, missingLabel, upstreamLabel, type Label } from './labels'
import { composeLive, type LivePrices } from './live-prices'
import { currentLocalQuotes, lastLocalFunding, localQuote } from './local'
import { composeMacro, type MacroView } from './macro-view'
import { composeNews, type NewsDigest } from './news-digest'
import { composeOverview, FEAR_GREED_MAX_AGE_MS, type MarketOverview } from './overview'
import { recommendedStrategies, REGIME_BANDS, regimeBand, type RecommendedStrategy } from './regime'
import { SnapshotStore } from './snapshot-store'
import { createSources, defaultClients, MACRO_SYMBOLS, policies, type Sources, type UpstreamClients } from './sources'

/** Longest a request waits on upstreams; the contract allows 2 s, the rest is composing the answer. */
export const REQUEST_BUDGET_MS = 1_800
/** How often the background job looks for due refreshes (ages are on the injected clock). */
export const REFRESH_TICK_MS = 5_000
/** Perpetuals shown in /macro (open interest, funding) */
export const MACRO_PERPS = 5
const MACRO_ANCHORS = ['BTCUSDT', 'ETHUSDT']
const EVENTS_SHOWN = 10

export interface MarketContextOptions {
  config: Config
  clock: Clock
  /** null: nothing is persisted (last values live in memory only) */
  db: Db | null
  store: CandleStore
  universe: Universe
  log?: Logger
  /** default: clients for the configured upstream URLs */
  clients?: UpstreamClients
  /** default: assets/macro-events.json */
  events?: MacroEvent[]
  /** figures of the default strategy per coin; absent = not computed (contract defaults) */
  strategyStats?: StrategyStatsFn
  /** default REQUEST_BUDGET_MS */
  budgetMs?: number
}

export interface RegimeResponse {
  regime: string | null
  fear_greed_index: number | null
  band: { min: number; max: number } | null
  recommended_strategies: RecommendedStrategy[]
  proxy: boolean
  source: string | null
  as_of: string | null
  stale: boolean
  label: Label
  missing_sources: string[]
  bands: { name: string; min: number; max: number; strategies: string[] }[]
}

export class MarketContext {
  readonly sources: Sources
  private readonly policy: ReturnType<typeof policies>
  private readonly events: MacroEvent[]
  private readonly budgetMs: number
  private statsCache: { version: number; figures: Promise<Map<string, StrategyFigures>> } | null = null

  constructor(private readonly o: MarketContextOptions) {
    this.policy = policies(o.config.upstream.refresh)
    this.events = o.events ?? loadEventsCalendar()
    this.budgetMs = o.budgetMs ?? REQUEST_BUDGET_MS
    const clients = o.clients ?? defaultClients(o.config.upstream)
    if (!o.config.offline) clients.binance.warm()
    this.sources = createSources({
      clients,
      newsFeeds: o.config.upstream.newsFeeds,
      clock: o.clock,
      snapshots: o.db ? new SnapshotStore(o.db) : null,
      offline: o.config.offline,
      log: o.log,
      openInterestSymbols: () => this.macroSymbols(),
    })
  }

  async market(): Promise<MarketOverview> {
    const deadline = this.deadline()
    const p = this.policy.market
    const s = this.sources
    const [spot, fearGreed, global, premium] = await Promise.all([s.spot.read(p, deadline), s.fearGreed.read(p, deadline), s.cgGlobal.read(p, deadline), s.premium.read(p, deadline)])
    const { store, universe } = this.o
    const needProxy = !fearGreed.value?.[0] || this.o.clock.now() - fearGreed.value[0].timestampMs > FEAR_GREED_MAX_AGE_MS
    return composeOverview({
      nowMs: this.o.clock.now(),
      spot, fearGreed, global, premium,
      localBtc: localQuote(store, 'BTCUSDT'),
      localEth: localQuote(store, 'ETHUSDT'),
      localQuotes: currentLocalQuotes(store, universe),
      localFunding: lastLocalFunding(store, store.symbols()),
      proxy: needProxy ? fearGreedProxy(store, universe) : null,
      stablecoins: new Set(universe.all().filter(c => c.meta.stablecoin).map(c => c.meta.symbol)),
    })
  }

  async live(): Promise<LivePrices> {
    const deadline = this.deadline()
    const [spot, futures] = await Promise.all([this.sources.spot.read(this.policy.live, deadline), this.sources.futures.read(this.policy.live, deadline)])
    const symbols = this.o.universe.all().map(c => c.meta.symbol)
    const lastOpen = symbols.reduce<number | null>((m, s) => {
      const t = this.o.store.lastCandleMs(s)
      return t !== null && (m === null || t > m) ? t : m
    }, null)
    return composeLive({
      nowMs: this.o.clock.now(),
      symbols,
      spot,
      futures,
      local: symbol => localQuote(this.o.store, symbol),
      localNewestMs: lastOpen === null ? null : lastOpen + HOUR_MS,
    })
  }

  async news(): Promise<NewsDigest> {
    const deadline = this.deadline()
    const urls = this.o.config.upstream.newsFeeds
    const reads = await Promise.all(this.sources.news.map(c => c.read(this.policy.news, deadline)))
    return composeNews(this.o.clock.now(), reads.map((read, i) => ({ url: urls[i], read })))
  }

  async macro(): Promise<MacroView> {
    const deadline = this.deadline()
    const s = this.sources
    const [dxy, us10y, sp500, openInterest, premium] = await Promise.all([
      s.macro.dxy.read(this.policy.macro, deadline),
      s.macro.us10y.read(this.policy.macro, deadline),
      s.macro.sp500.read(this.policy.macro, deadline),
      s.openInterest.read(this.policy.macro, deadline),
      s.premium.read(this.policy.market, deadline),
    ])
    const symbols = this.macroSymbols()
    const nowMs = this.o.clock.now()
    return composeMacro({
      nowMs,
      quotes: { dxy: { symbol: MACRO_SYMBOLS.dxy, read: dxy }, us10y: { symbol: MACRO_SYMBOLS.us10y, read: us10y }, sp500: { symbol: MACRO_SYMBOLS.sp500, read: sp500 } },
      openInterest,
      premium,
      symbols,
      localFunding: lastLocalFunding(this.o.store, symbols),
      events: upcomingEvents(this.events, nowMs, EVENTS_SHOWN),
      eventsSource: EVENTS_FILE.split('/').slice(-2).join('/'),
    })
  }

  async regime(): Promise<RegimeResponse> {
    const read = await this.sources.fearGreed.read(this.policy.market, this.deadline())
    const nowMs = this.o.clock.now()
    const fg = read.value?.[0]
    let value: number | null = null
    let label: Label
    if (fg && nowMs - fg.timestampMs <= FEAR_GREED_MAX_AGE_MS) {
      value = fg.value
      label = upstreamLabel(read, nowMs)
    } else {
      const proxy = fearGreedProxy(this.o.store, this.o.universe)
      if (proxy) {
        value = proxy.value
        label = localLabel(proxy.asOfMs, nowMs, read.error ?? (fg ? 'published value too old' : null), true)
      } else label = missingLabel(read.error)
    }
    const band = value === null ? null : regimeBand(value)
    return {
      regime: band?.name ?? null,
      fear_greed_index: value,
      band: band ? { min: band.min, max: band.max } : null,
      recommended_strategies: band ? recommendedStrategies(band) : [],
      proxy: label.proxy,
      source: label.source,
      as_of: label.as_of,
      stale: label.stale,
      label,
      missing_sources: value === null ? [read.source] : [],
      bands: REGIME_BANDS.map(b => ({ name: b.name, min: b.min, max: b.max, strategies: [...b.strategies] })),
    }
  }

  async coinStats(): Promise<CoinStatsResponse> {
    const deadline = this.deadline()
    const p = this.policy.market
    const [spot, futures, cg] = await Promise.all([this.sources.spot.read(p, deadline), this.sources.futures.read(p, deadline), this.sources.cgMarkets.read(p, deadline)])
    const { store, universe } = this.o
    const coins = universe.eligible().map(c => {
      const bars = store.bars(c.meta.symbol)
      return {
        symbol: c.meta.symbol,
        storeName: c.meta.name || null,
        local: localQuote(store, c.meta.symbol),
        localChange7d: bars ? change7d(bars) : null,
        sparkline7d: bars ? sparkline7d(bars) : null,
      }
    })
    const def = getStrategy(DEFAULT_STATS_STRATEGY)
    const params = def ? { sl_pct: def.sl_pct, tp_pct: def.tp_pct, max_bars: def.max_bars, direction: def.direction } : {}
    return composeCoinStats({
      nowMs: this.o.clock.now(),
      coins,
      spot,
      futures,
      cg,
      strategy: DEFAULT_STATS_STRATEGY,
      params,
      figures: await this.strategyFigures(coins.map(c => c.symbol)),
    })
  }

  /** Background job: refresh every cache whose interval has passed on the injected clock. */
  async refreshDue(): Promise<void> {
    if (this.o.config.offline) return
    const r = this.o.config.upstream.refresh
    const s = this.sources
    await Promise.all([
      ...[s.spot, s.futures, s.premium, s.cgGlobal, s.cgMarkets, s.fearGreed].map(c => c.refreshIfDue(r.marketMs)),
      ...s.news.map(c => c.refreshIfDue(r.newsMs)),
      ...[s.macro.dxy, s.macro.us10y, s.macro.sp500, s.openInterest].map(c => c.refreshIfDue(r.macroMs)),
    ])
  }

  /** BTC, ETH, then the largest eligible coins, MACRO_PERPS in all. */
  macroSymbols(): string[] {
    const out = new Set(MACRO_ANCHORS)
    for (const c of this.o.universe.eligible()) {
      if (out.size >= MACRO_PERPS) break
      out.add(c.meta.symbol)
    }
    return [...out].slice(0, MACRO_PERPS)
  }

  private deadline(): number {
    return performance.now() + this.budgetMs
  }

  /** The engine's figures, computed once per store version (the candles do not change in between). */
  private async strategyFigures(symbols: string[]): Promise<Map<string, StrategyFigures> | null> {
    if (!this.o.strategyStats) return null
    const version = this.o.store.version
    if (!this.statsCache || this.statsCache.version !== version) {
      const fn = this.o.strategyStats
      this.statsCache = { version, figures: Promise.resolve().then(() => fn(symbols)) }
    }
    try {
      return await this.statsCache.figures
    } catch (e) {
      this.statsCache = null
      this.o.log?.error(`market-context: strategy figures failed: ${(e as Error)?.stack ?? e}`)
      return null
    }
  }
}

