/**
 * The synthetic universe: a deterministic (seeded) market of real perpetual symbols with
 * 1H candles and funding events that look like the real thing: volatility by tier, fat
 * tails, volatility clustering, a BTC market factor with crashes, staggered listings,
 * stablecoins near 1, calm non-crypto perps and a few liquidity-dead markets.
 * The model is in synthetic-model.ts and written down in docs/data.md, "Synthetic universe";
 * the hourly continuation used in demo mode is in synthetic-demo.ts.
 */
import type { CandleStore } from './candle-store'
import { Rng } from './synthetic-rng'
import {
  BTC_HOURLY_VOL,
  COIN_LIST,
  GARCH_ALPHA,
  GARCH_BETA,
  GARCH_SHOCK_CAP,
  IDIO_REGIME_SD,
  MARKET_REGIME_SD,
  RANGE_SCALE,
  REGIME_PHI,
  STABLE_PHI,
  behaviourOf,
  coinParams,
  DELISTINGS,
  delistingParams,
  metaOf,
  type CoinListEntry,
  type CoinParams,
  type Seasonality,
} from './synthetic-model'
import {
  bridgeHigh,
  bridgeLow,
  ceilPrice,
  crashWick,
  floorPrice,
  innovation,
  jumpSize,
  lastCompletedOpenMs,
  marketJump,
  openGap,
  priceDecimals,
  roundPrice,
  roundQty,
  seasonalSeries,
  volumeWeight,
} from './synthetic-ticks'
import { FUNDING_TREND_HOURS, fundingNoiser, fundingRate, isFundingTime } from './synthetic-funding'
import { syntheticBrackets } from './synthetic-brackets'
import type { CoinMeta, MarginBracket } from './types'
import { medianDailyQuoteVolume } from './universe'
import { DAY_MS, HOUR_MS } from '../time'

export { appendDemoCandles } from './synthetic-demo'
export { COIN_LIST } from './synthetic-model'
export { lastCompletedOpenMs } from './synthetic-ticks'

export interface GenerateOptions {
  /** how many coins of the shipped list, in its order (1 to COIN_LIST.length) */
  coins: number
  /** length of the window in days (24 bars each) */
  days: number
  seed: number
  /** the clock's now: the newest candle closes at or before it */
  endMs: number
  /**
   * how many coins that collapse and are delisted inside the window to generate beside the
   * list (0 to DELISTINGS.length; default 0). They never touch the listed coins' series.
   */
  delistings?: number
  onProgress?: (done: number, total: number) => void
}

export interface GenerateResult {
  coins: number
  /** candle rows written */
  rows: number
}

/** a new listing's volatility starts (1 + LISTING_BOOST) times higher and decays with this time constant */
const LISTING_BOOST = 1.5
const LISTING_BOOST_HOURS = 96
/** quote volume grows with the price level (a proxy of market value): ∝ price^0.6 */
const PRICE_VOLUME_ELASTICITY = 0.6
/** share of the list generated as liquidity-dead markets (taken from the last third) */
const DEAD_SHARE = 0.015


/** Positions (into the selection) generated as liquidity-dead: a handful from its last third. */
export function deadPositions(selection: readonly CoinListEntry[], seed: number): Set<number> {
  const n = selection.length
  if (n < 10) return new Set()
  const pool: number[] = []
  for (let i = Math.floor((2 * n) / 3); i < n; i++) {
    const e = selection[i]
    if (behaviourOf(e) === 'crypto' && e.kind === null && (e.rank ?? Infinity) > 50) pool.push(i)
  }
  const rng = new Rng(seed, 'dead')
  for (let i = pool.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[pool[i], pool[j]] = [pool[j], pool[i]]
  }
  return new Set(pool.slice(0, Math.max(1, Math.round(n * DEAD_SHARE))))
}

/** the market factor: BTC's log return without drift, its volatility, and its jumps */
export interface MarketPath {
  f: Float64Array
  sigma: Float64Array
  jump: Float64Array
  /** seasonal volatility multipliers of every hour of the window, by kind */
  season: Record<Seasonality, Float64Array>
}

export function marketPath(seed: number, firstOpenMs: number, nBars: number): MarketPath {
  const rng = new Rng(seed, 'market')
  const f = new Float64Array(nBars), sigma = new Float64Array(nBars), jump = new Float64Array(nBars)
  const season = {
    crypto: seasonalSeries('crypto', firstOpenMs, nBars),
    stock: seasonalSeries('stock', firstOpenMs, nBars),
    commodity: seasonalSeries('commodity', firstOpenMs, nBars),
  }
  const regimeStep = Math.sqrt(1 - REGIME_PHI * REGIME_PHI) * MARKET_REGIME_SD
  const regimeMean = MARKET_REGIME_SD * MARKET_REGIME_SD
  let h = 1
  let s = MARKET_REGIME_SD * rng.normal()
  for (let k = 0; k < nBars; k++) {
    s = REGIME_PHI * s + regimeStep * rng.normal()
    const sig = BTC_HOURLY_VOL * Math.exp(s - regimeMean) * Math.sqrt(h) * season.crypto[k]
    const z = innovation(rng, 4)
    const j = marketJump(rng)
    f[k] = sig * z + j
    sigma[k] = sig
    jump[k] = j
    const shock = Math.min(GARCH_SHOCK_CAP, z * z + (j / sig) ** 2)
    h = 1 - GARCH_ALPHA - GARCH_BETA + GARCH_ALPHA * shock * h + GARCH_BETA * h
  }
  return { f, sigma, jump, season }
}

/** log-price path of one coin (relative), its quote-volume weights and flat (no-trade) hours */
interface LogPath {
  o: Float64Array
  h: Float64Array
  l: Float64Array
  c: Float64Array
  /** unscaled quote-volume weight; 0 for an hour without trades */
  w: Float64Array
  n: number
}

function coinLogPath(p: CoinParams, m: MarketPath, nBars: number, seed: number): LogPath {
  const lastIdx = p.delistIdx ?? nBars - 1
  const n = lastIdx + 1 - p.listingIdx
  // a delisting coin's collapse: an extra drift over its last collapseBars bars
  const collapseFrom = p.delistIdx === null ? Infinity : lastIdx + 1 - p.collapseBars
  const collapseStep = p.collapseBars > 0 ? p.collapseLogDrop / p.collapseBars : 0
  const path: LogPath = {
    o: new Float64Array(n),
    h: new Float64Array(n),
    l: new Float64Array(n),
    c: new Float64Array(n),
    w: new Float64Array(n),
    n,
  }
  const rng = new Rng(seed, `path:${p.entry.symbol}`)
  const stable = p.behaviour === 'stable'
  const stableStep = p.volHourly * Math.sqrt(1 - STABLE_PHI * STABLE_PHI)
  const regimeStep = Math.sqrt(1 - REGIME_PHI * REGIME_PHI) * IDIO_REGIME_SD
  const regimeMean = IDIO_REGIME_SD * IDIO_REGIME_SD
  let s = IDIO_REGIME_SD * rng.normal()
  let hVar = 1
  let x = stable ? p.volHourly * rng.normal() : 0 // latent log price
  let obs = x // last traded close
  const season = m.season[p.seasonality]
  for (let j = 0; j < n; j++) {
    const k = p.listingIdx + j
    const g = season[k]
    let r: number, barVar: number
    const boost = p.listingFrenzy ? 1 + LISTING_BOOST * Math.exp(-j / LISTING_BOOST_HOURS) : 1
    const mj = m.jump[k]
    if (stable) {
      const next = STABLE_PHI * x + stableStep * g * rng.normal()
      r = next - x
      barVar = stableStep * stableStep * g * g
    } else {
      s = REGIME_PHI * s + regimeStep * rng.normal()
      const sIdio = p.idioVol * Math.exp(s - regimeMean) * Math.sqrt(hVar) * g * boost
      const z = innovation(rng, p.nu)
      const jump = rng.uniform() < p.jumpProb ? jumpSize(rng, p.volHourly) : 0
      r = p.driftHourly + p.beta * m.f[k] + sIdio * z + jump + (p.crashAmp - 1) * p.beta * mj
      if (k >= collapseFrom) r += collapseStep
      hVar = 1 - GARCH_ALPHA - GARCH_BETA + GARCH_ALPHA * Math.min(GARCH_SHOCK_CAP, z * z) * hVar + GARCH_BETA * hVar
      const sMkt = p.beta * m.sigma[k]
      barVar = sMkt * sMkt + sIdio * sIdio
    }
    x += r
    if (p.dead && rng.uniform() < p.flatProb) {
      path.o[j] = path.h[j] = path.l[j] = path.c[j] = obs
      continue // w stays 0: nobody traded, the latent price moves on
    }
    const barSd = Math.sqrt(barVar)
    const gap = openGap(rng, barSd)
    const o = obs + gap
    const d = x - o
    const s2 = RANGE_SCALE * RANGE_SCALE * barVar
    let hi = o + bridgeHigh(d, s2, rng.uniform())
    let lo = o + bridgeLow(d, s2, rng.uniform())
    if (mj !== 0 && p.behaviour === 'crypto') {
      // a crash or squeeze overshoots inside the hour: a long wick beyond the close
      const wick = crashWick(rng, mj, p.beta, p.crashAmp)
      if (mj < 0) lo -= wick
      else hi += wick
    }
    path.o[j] = o
    path.h[j] = hi
    path.l[j] = lo
    path.c[j] = x
    // volume follows volatility and the size of the move, plus noise
    path.w[j] = volumeWeight(g, barSd / p.volHourly, Math.abs(r) / barSd) * Math.exp(0.4 * rng.normal()) * boost * Math.sqrt(boost)
    // turnover shrinks and grows with the coin's value: quote volume ∝ price^PRICE_VOLUME_ELASTICITY
    if (!stable) path.w[j] *= Math.exp(PRICE_VOLUME_ELASTICITY * x)
    obs = x
  }
  return path
}

/** Scale factor that makes the median daily quote volume of the last 30 days equal `target`. */
function volumeScale(w: Float64Array, firstOpenMs: number, target: number): number {
  const n = w.length
  if (n === 0) return 0
  const lastDay = Math.floor((firstOpenMs + (n - 1) * HOUR_MS) / DAY_MS)
  const sums = new Float64Array(30)
  for (let j = n - 1; j >= 0; j--) {
    const d = Math.floor((firstOpenMs + j * HOUR_MS) / DAY_MS)
    if (d <= lastDay - 30) break
    sums[d - (lastDay - 29)] += w[j]
  }
  const firstDay = Math.floor(firstOpenMs / DAY_MS)
  const days = Array.from(sums.subarray(Math.max(0, firstDay - (lastDay - 29)))).sort((a, b) => a - b)
  const mid = days.length >> 1
  const med = days.length % 2 ? days[mid] : (days[mid - 1] + days[mid]) / 2
  if (med > 0) return target / med
  const mean = days.reduce((a, b) => a + b, 0) / days.length
  return mean > 0 ? target / mean : 0
}

export interface CoinSeries {
  /** t, o, h, l, c, v */
  cols: Float64Array[]
  n: number
  fundingT: Float64Array
  fundingRate: Float64Array
  fundingN: number
}

/** Prices, volumes and funding of one coin from its log path (ticks applied). */
function coinSeries(p: CoinParams, path: LogPath, firstOpenMs: number, seed: number): CoinSeries {
  const n = path.n
  const t = new Float64Array(n), o = new Float64Array(n), h = new Float64Array(n)
  const l = new Float64Array(n), c = new Float64Array(n), v = new Float64Array(n)
  const offset = p.behaviour === 'stable' ? 0 : Math.log(p.endPrice) - path.c[n - 1]
  const coinFirstMs = firstOpenMs + p.listingIdx * HOUR_MS
  // quote volume = v × close, the quantity the universe's liquidity rule measures
  const scale = volumeScale(path.w, coinFirstMs, p.dailyQuoteUsd)
  let prevC = 0
  for (let j = 0; j < n; j++) {
    t[j] = coinFirstMs + j * HOUR_MS
    const O = Math.exp(path.o[j] + offset)
    const dec = priceDecimals(j > 0 ? prevC : O)
    if (j > 0 && path.w[j] === 0) {
      o[j] = h[j] = l[j] = c[j] = prevC
      continue
    }
    o[j] = j > 0 && path.o[j] === path.c[j - 1] ? prevC : roundPrice(O, dec)
    c[j] = roundPrice(Math.exp(path.c[j] + offset), dec)
    h[j] = Math.max(ceilPrice(Math.exp(path.h[j] + offset), dec), o[j], c[j])
    let low = Math.min(floorPrice(Math.exp(path.l[j] + offset), dec), o[j], c[j])
    if (!(low > 0)) low = 10 ** -dec
    l[j] = low
    v[j] = roundQty((path.w[j] * scale) / c[j], c[j])
    prevC = c[j]
  }
  const fund = fundingSeries(p, t, c, n, seed)
  return { cols: [t, o, h, l, c, v], n, ...fund }
}

function fundingSeries(p: CoinParams, t: Float64Array, c: Float64Array, n: number, seed: number) {
  const rule = { everyH: p.fundingEveryH, tier: p.tier, stable: p.behaviour === 'stable' }
  const cap = Math.ceil(n / p.fundingEveryH) + 1
  const ft = new Float64Array(cap), fr = new Float64Array(cap)
  const noise = fundingNoiser(seed, p.entry.symbol)
  let m = 0
  for (let j = 1; j < n; j++) {
    if (!isFundingTime(t[j], p.fundingEveryH)) continue
    const trend = Math.log(c[j - 1] / c[Math.max(0, j - 1 - FUNDING_TREND_HOURS)])
    ft[m] = t[j]
    fr[m] = fundingRate(rule, trend, noise(t[j]))
    m++
  }
  return { fundingT: ft.subarray(0, m), fundingRate: fr.subarray(0, m), fundingN: m }
}

/** One coin's complete series for a window (exported for tests and the benchmark). */
export function generateCoinSeries(
  p: CoinParams,
  market: MarketPath,
  firstOpenMs: number,
  nBars: number,
  seed: number,
): CoinSeries {
  return coinSeries(p, coinLogPath(p, market, nBars, seed), firstOpenMs, seed)
}

/**
 * Generate the first `opts.coins` coins of the shipped list for a window of `opts.days`
 * days ending at the last completed hour ≤ endMs, handing each coin's metadata and
 * series to `visit` (in list order) without keeping them.
 */
export function synthesizeCoins(
  opts: Omit<GenerateOptions, 'onProgress'>,
  visit: (meta: CoinMeta, series: CoinSeries, params: CoinParams) => void,
): void {
  const { coins, days, seed, endMs } = opts
  const delistings = opts.delistings ?? 0
  if (!Number.isInteger(delistings) || delistings < 0 || delistings > DELISTINGS.length)
    throw new RangeError(`delistings must be an integer from 0 to ${DELISTINGS.length}`)
  if (!Number.isInteger(coins) || coins < 1 || coins > COIN_LIST.length)
    throw new RangeError(`coins must be an integer from 1 to ${COIN_LIST.length}`)
  if (!Number.isInteger(days) || days < 1) throw new RangeError('days must be a positive integer')
  if (!Number.isFinite(seed) || !Number.isFinite(endMs)) throw new RangeError('seed and endMs must be finite')
  const nBars = days * 24
  const lastOpenMs = lastCompletedOpenMs(endMs)
  const firstOpenMs = lastOpenMs - (nBars - 1) * HOUR_MS
  const selection = COIN_LIST.slice(0, coins)
  const dead = deadPositions(selection, seed)
  const market = marketPath(seed, firstOpenMs, nBars)
  for (let i = 0; i < selection.length; i++) {
    const p = coinParams(selection[i], seed, nBars, dead.has(i))
    const series = generateCoinSeries(p, market, firstOpenMs, nBars, seed)
    visit(metaOf(p.entry, series.cols[0][0]), series, p)
  }
  for (let i = 0; i < delistings; i++) {
    const p = delistingParams(DELISTINGS[i], i, seed, nBars)
    const series = generateCoinSeries(p, market, firstOpenMs, nBars, seed)
    visit(metaOf(p.entry, series.cols[0][0], series.cols[0][series.n - 1]), series, p)
  }
}

/**
 * Brackets by each coin's liquidity, as Binance shapes them (synthetic-brackets.ts), as a
 * new snapshot of the store's brackets: at generation, and for a synthetic store generated
 * before brackets existed (`serve` adds them once at start; nothing earlier is rewritten).
 */
export function addSyntheticBrackets(store: CandleStore, symbols: readonly string[], asOfMs: number): number {
  const brackets: Record<string, MarginBracket[]> = {}
  for (const s of symbols) {
    const bars = store.bars(s)
    if (bars && bars.n > 0) brackets[s] = syntheticBrackets(medianDailyQuoteVolume(bars))
  }
  const n = Object.keys(brackets).length
  if (n > 0) store.addBrackets({ asOfMs, source: 'synthetic', brackets })
  return n
}

/**
 * Generate the synthetic universe into `store`: candles (one appendCandles call per
 * coin), funding events, and metadata with source 'synthetic'. Expects an empty store.
 */
export function generateSyntheticUniverse(store: CandleStore, opts: GenerateOptions): GenerateResult {
  const metas: CoinMeta[] = []
  let rows = 0
  synthesizeCoins(opts, (meta, series) => {
    rows += store.appendCandles(meta.symbol, series.cols, series.n).appended
    if (series.fundingN > 0) store.appendFunding(meta.symbol, series.fundingT, series.fundingRate, series.fundingN)
    metas.push(meta)
    opts.onProgress?.(metas.length, opts.coins + (opts.delistings ?? 0))
  })
  store.upsertMeta(metas, 'synthetic')
  if (metas.length > 0) addSyntheticBrackets(store, metas.map(m => m.symbol), opts.endMs)
  return { coins: metas.length, rows }
}
