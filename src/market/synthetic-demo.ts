/**
 * Demo mode: the synthetic market keeps trading. Each call appends, to every coin of a
 * synthetic store, every hour completed since its last candle, plus the funding events
 * at the coin's settlement hours.
 *
 * A new candle is a pure function of (seed, symbol, hour) and the stored candles before
 * it: the coin's beta to BTC, its residual volatility (GARCH(1,1) filtered over the last
 * WINDOW bars), its volume level and its share of no-trade hours are re-estimated from
 * the store at every hour, and the innovations come from streams seeded by (seed,
 * symbol, hour). So a restart reproduces the same candles, and one catch-up call over
 * five hours writes exactly what five hourly calls would have written.
 */
import type { CandleStore } from './candle-store'
import { Rng, hash32 } from './synthetic-rng'
import {
  GARCH_ALPHA,
  GARCH_BETA,
  GARCH_SHOCK_CAP,
  RANGE_SCALE,
  STABLE_PHI,
  behaviourOf,
  coinListEntry,
  coinParams,
  jumpProbOf,
  tierOfRank,
  type Behaviour,
  type CoinParams,
  type Seasonality,
  type Tier,
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
  seasonal,
  volumeWeight,
} from './synthetic-ticks'
import { FUNDING_TREND_HOURS, fundingNoiser, fundingRate, isFundingTime } from './synthetic-funding'
import { HOUR_MS } from '../time'

/** bars the continuation is fitted on (20 days) */
export const DEMO_WINDOW = 480
/** weight of the long-run level in each hour's volatility fit (half-life ≈ 480·ln2/ANCHOR hours) */
const ANCHOR = 0.2
const MIN_SD = 1e-5

interface DemoCoin {
  symbol: string
  behaviour: Behaviour
  season: Seasonality
  tier: Tier
  stable: boolean
  fundingEveryH: 4 | 8
  /** extra depth of market crashes (the generator's figure for the coin) */
  crashAmp: number
  /**
   * the generator's unconditional residual sd for this coin (deseasonalised), which the
   * fitted level is pulled towards so months of demo neither freeze nor explode; null
   * for a symbol the shipped list does not know
   */
  targetSd: number | null
  /** hash of the coin's demo stream label; one stream per hour is keyed from it */
  streamHash: number
  fundingNoise: (tMs: number) => number
  /** the last WINDOW stored bars followed by the new ones */
  t: number[]
  o: number[]
  h: number[]
  l: number[]
  c: number[]
  v: number[]
  /** log return of each bar (NaN for the first) and its seasonal factor: cached, exact */
  r: number[]
  g: number[]
  /** index of the first new bar */
  firstNew: number
  fundT: number[]
  fundRate: number[]
}

/** what one hour's market draw holds: BTC's innovation and any crash or squeeze */
interface MarketDraw {
  z: number
  jump: number
}

function marketDraw(marketHash: number, tMs: number): MarketDraw {
  const rng = Rng.keyed(marketHash, tMs)
  const z = innovation(rng, 4)
  return { z, jump: marketJump(rng) }
}

function loadCoin(store: CandleStore, symbol: string, seed: number): DemoCoin | null {
  const bars = store.bars(symbol)
  if (!bars || bars.n < 2) return null
  const meta = store.meta(symbol)
  const entry = coinListEntry(symbol)
  const behaviour = behaviourOf({
    stablecoin: meta?.stablecoin ?? false,
    asset_class: meta?.assetClass ?? 'crypto',
    kind: entry?.kind ?? null,
  })
  const season: Seasonality = behaviour === 'stock' ? 'stock' : behaviour === 'commodity' ? 'commodity' : 'crypto'
  const from = Math.max(0, bars.n - DEMO_WINDOW - 1)
  // the generator's own figures for this coin, when the shipped list knows it
  const params = entry ? coinParams(entry, seed, 1, false) : null
  const coin: DemoCoin = {
    symbol,
    behaviour,
    season,
    tier: params?.tier ?? tierOfRank(symbol, meta?.rank ?? null),
    stable: behaviour === 'stable',
    fundingEveryH: fundingInterval(store, symbol),
    crashAmp: params?.crashAmp ?? (symbol === 'BTCUSDT' ? 1 : 1.5),
    targetSd: params ? residualTarget(params) : null,
    streamHash: hash32(seed, `demo:${symbol}`),
    fundingNoise: fundingNoiser(seed, symbol),
    t: Array.from(bars.t.subarray(from)),
    o: Array.from(bars.o.subarray(from)),
    h: Array.from(bars.h.subarray(from)),
    l: Array.from(bars.l.subarray(from)),
    c: Array.from(bars.c.subarray(from)),
    v: Array.from(bars.v.subarray(from)),
    r: [],
    g: [],
    firstNew: bars.n - from,
    fundT: [],
    fundRate: [],
  }
  for (let i = 0; i < coin.t.length; i++) {
    coin.r.push(i > 0 ? Math.log(coin.c[i] / coin.c[i - 1]) : NaN)
    coin.g.push(seasonal(season, coin.t[i]))
  }
  return coin
}

/** the settlement interval a coin has been using (4 h or 8 h) */
function fundingInterval(store: CandleStore, symbol: string): 4 | 8 {
  const f = store.funding(symbol)
  if (!f || f.n === 0) return 8
  if (f.n >= 2 && f.t[f.n - 1] - f.t[f.n - 2] === 4 * HOUR_MS) return 4
  return f.t[f.n - 1] % (8 * HOUR_MS) === 0 ? 8 : 4
}

/** Fit of a coin's recent behaviour: beta to BTC, residual scale, GARCH state, volume ratio. */
interface Fit {
  beta: number
  /** unconditional sd of the deseasonalised residual */
  s: number
  /** GARCH variance multiplier for the next bar */
  h: number
  /** quote volume per unit of the volume weight */
  volumeRatio: number
  /** share of window bars without trades */
  flatShare: number
}

function fitCoin(coin: DemoCoin, btc: DemoCoin | null, end = coin.t.length): Fit {
  // fitted on bars [start, end)
  const start = Math.max(1, end - DEMO_WINDOW)
  const m = new Float64Array(end - start)
  let pairs = 0
  if (btc && btc !== coin) {
    for (let i = start; i < end; i++) {
      const rm = marketReturnAt(btc, coin.t[i])
      m[i - start] = Number.isFinite(rm) ? rm : 0
      if (Number.isFinite(rm)) pairs++
    }
  }
  let beta = 0
  if (pairs >= 48) {
    let sxy = 0, sxx = 0, mx = 0, my = 0
    for (let i = start; i < end; i++) {
      mx += m[i - start]
      my += coin.r[i]
    }
    mx /= end - start
    my /= end - start
    for (let i = start; i < end; i++) {
      const dx = m[i - start] - mx
      sxy += dx * (coin.r[i] - my)
      sxx += dx * dx
    }
    beta = sxx > 0 ? sxy / sxx : 0
  }
  let ss = 0, flats = 0
  const e = new Float64Array(end - start)
  for (let i = start; i < end; i++) {
    e[i - start] = (coin.r[i] - beta * m[i - start]) / coin.g[i]
    ss += e[i - start] * e[i - start]
    if (coin.v[i] === 0) flats++
  }
  const s = anchoredSd(coin, Math.sqrt(ss / (end - start)))
  // GARCH filter through the window; the volume weight of each traded bar on the way
  let h = 1, quote = 0, weight = 0
  for (let i = start; i < end; i++) {
    const barSd = s * Math.sqrt(h) * coin.g[i]
    if (coin.v[i] > 0) {
      quote += coin.v[i] * coin.c[i]
      weight += volumeWeight(coin.g[i], Math.sqrt(h) * coin.g[i], Math.abs(e[i - start]) / (s * Math.sqrt(h)))
    }
    const z2 = (e[i - start] * e[i - start]) / (s * s * h)
    h = 1 - GARCH_ALPHA - GARCH_BETA + GARCH_ALPHA * Math.min(GARCH_SHOCK_CAP, z2) * h + GARCH_BETA * h
  }
  return {
    beta,
    s,
    h,
    volumeRatio: weight > 0 ? quote / weight : 0,
    flatShare: flats / (end - start),
  }
}

/** BTC's log return of the hour starting at tMs (NaN when it has no such bar) */
function marketReturnAt(btc: DemoCoin, tMs: number): number {
  const i = btc.t.length - 1 - Math.round((btc.t[btc.t.length - 1] - tMs) / HOUR_MS)
  return i >= 1 && btc.t[i] === tMs ? btc.r[i] : NaN
}

/** BTC's model sd for the hour starting at tMs, fitted on its bars before that hour */
function btcSigmaAt(btc: DemoCoin, tMs: number): number {
  const last = btc.t.length - 1
  const i = last + 1 - Math.round((btc.t[last] + HOUR_MS - tMs) / HOUR_MS)
  if (i < 2 || i > last + 1 || (i <= last && btc.t[i] !== tMs)) return 0
  const fit = fitCoin(btc, null, i)
  return fit.s * Math.sqrt(fit.h) * seasonal(btc.season, tMs)
}

/** Append the bar opening at tMs to `coin`. */
function stepCoin(coin: DemoCoin, btc: DemoCoin | null, tMs: number, market: MarketDraw, btcSd: number): void {
  const rng = Rng.keyed(coin.streamHash, tMs)
  const g = seasonal(coin.season, tMs)
  const prevC = coin.c[coin.c.length - 1]
  const fit = fitCoin(coin, btc)
  let r: number, barVar: number, mktJump = 0
  if (coin.stable) {
    const sd = logSd(coin)
    const x = Math.log(prevC)
    const step = sd * Math.sqrt(1 - STABLE_PHI * STABLE_PHI) * g
    r = STABLE_PHI * x + step * rng.normal() - x
    barVar = step * step
  } else if (coin === btc) {
    const sig = fit.s * Math.sqrt(fit.h) * g
    r = sig * market.z + market.jump
    barVar = sig * sig
    mktJump = market.jump
  } else {
    const sIdio = fit.s * Math.sqrt(fit.h) * g
    const f = btc ? marketReturnAt(btc, tMs) : NaN
    const z = innovation(rng, coin.behaviour === 'crypto' ? 4 : 6)
    const jumpP = coin.behaviour === 'crypto' ? jumpProbOf(coin.tier) : 1 / 8000
    const jump = rng.uniform() < jumpP ? jumpSize(rng, fit.s) : 0
    mktJump = coin.behaviour === 'crypto' ? market.jump : 0
    r = (Number.isFinite(f) ? fit.beta * f : 0) + sIdio * z + jump + (coin.crashAmp - 1) * fit.beta * mktJump
    const sMkt = fit.beta * btcSd
    barVar = sMkt * sMkt + sIdio * sIdio
  }
  const barSd = Math.sqrt(barVar)
  const dec = priceDecimals(prevC)
  const i = coin.t.length
  coin.t.push(tMs)
  coin.g.push(g)
  const flat = fit.flatShare > 0 && rng.uniform() < fit.flatShare
  if (flat) {
    // no trade this hour: the dead market's price stands still
    coin.o.push(prevC); coin.h.push(prevC); coin.l.push(prevC); coin.c.push(prevC); coin.v.push(0)
    coin.r.push(0)
  } else {
    const gap = openGap(rng, barSd)
    const o = gap === 0 ? prevC : roundPrice(prevC * Math.exp(gap), dec)
    const xo = Math.log(o)
    const d = Math.log(prevC) + r - xo
    const s2 = RANGE_SCALE * RANGE_SCALE * barVar
    let hi = xo + bridgeHigh(d, s2, rng.uniform())
    let lo = xo + bridgeLow(d, s2, rng.uniform())
    if (mktJump !== 0) {
      const wick = crashWick(rng, mktJump, Math.max(0, fit.beta || 1), coin.crashAmp)
      if (mktJump < 0) lo -= wick
      else hi += wick
    }
    const c = roundPrice(Math.exp(xo + d), dec)
    const hP = Math.max(ceilPrice(Math.exp(hi), dec), o, c)
    let lP = Math.min(floorPrice(Math.exp(lo), dec), o, c)
    if (!(lP > 0)) lP = 10 ** -dec
    // the residual move in units of its sd, measured exactly as fitCoin measures the window's
    const f0 = btc && coin !== btc ? marketReturnAt(btc, tMs) : NaN
    const resid = r - (Number.isFinite(f0) ? fit.beta * f0 : 0)
    const w = volumeWeight(g, Math.sqrt(fit.h) * g, Math.abs(resid) / (fit.s * Math.sqrt(fit.h) * g))
    const quote = fit.volumeRatio * w * Math.exp(0.4 * rng.normal() - 0.08)
    coin.o.push(o); coin.h.push(hP); coin.l.push(lP); coin.c.push(c)
    coin.v.push(roundQty(quote / c, c))
    coin.r.push(Math.log(c / prevC))
  }
  if (isFundingTime(tMs, coin.fundingEveryH)) {
    const back = Math.max(0, i - 1 - FUNDING_TREND_HOURS)
    const trend = Math.log(coin.c[i - 1] / coin.c[back])
    coin.fundT.push(tMs)
    coin.fundRate.push(
      fundingRate({ everyH: coin.fundingEveryH, tier: coin.tier, stable: coin.stable }, trend, coin.fundingNoise(tMs)),
    )
  }
}

/** sd of the log price over the window: a stablecoin's spread around its peg */
function logSd(coin: DemoCoin): number {
  const n = coin.c.length
  const from = Math.max(0, n - DEMO_WINDOW)
  let s = 0, ss = 0
  for (let i = from; i < n; i++) {
    const x = Math.log(coin.c[i])
    s += x
    ss += x * x
  }
  const k = n - from
  return anchoredSd(coin, Math.sqrt(Math.max(0, ss / k - (s / k) ** 2)))
}

/** the fitted sd pulled a little towards the coin's long-run level */
function anchoredSd(coin: DemoCoin, fitted: number): number {
  const v = coin.targetSd === null ? fitted * fitted : (1 - ANCHOR) * fitted * fitted + ANCHOR * coin.targetSd * coin.targetSd
  return Math.max(MIN_SD, Math.sqrt(v))
}

/** the residual sd the generator gives this coin (its idiosyncratic part; all of it for BTC) */
function residualTarget(p: CoinParams): number {
  if (p.behaviour === 'stable') return p.volHourly
  return p.entry.symbol === 'BTCUSDT' ? p.volHourly : p.idioVol
}

/**
 * Append to every coin of a synthetic store each hour completed since its last candle,
 * up to the last hour that closed at or before nowMs, and the funding events at its
 * settlement hours; then draw the hour now forming and keep its open in the store
 * (store.setFormingOpen), so a signal of the hour that just closed has its entry price at
 * once. The forming candle is drawn exactly as the next call will draw it when its hour
 * is over (same seed stream, same stored candles before it), so the open the store
 * remembers now is the open it will store then (tested). Returns the candle rows appended
 * (0 for a store that is not synthetic).
 */
export function appendDemoCandles(store: CandleStore, nowMs: number, seed: number): number {
  if (!store.isSynthetic()) return 0
  const targetOpenMs = lastCompletedOpenMs(nowMs)
  const coins: DemoCoin[] = []
  let btc: DemoCoin | null = null
  for (const symbol of store.symbols()) {
    const last = store.lastCandleMs(symbol)
    if (last === null || last > targetOpenMs) continue
    if (store.meta(symbol)?.status === 'delisted') continue // its market closed: no more candles
    const coin = loadCoin(store, symbol, seed)
    if (!coin) continue
    if (symbol === 'BTCUSDT') btc = coin
    coins.push(coin)
  }
  if (coins.length === 0) return 0
  // BTC first in every hour: the others' market return is its return
  coins.sort((a, b) => (a === btc ? -1 : b === btc ? 1 : 0))
  const marketHash = hash32(seed, 'demo:market')
  const step = (tMs: number) => {
    const market = marketDraw(marketHash, tMs)
    const btcSd = btc ? btcSigmaAt(btc, tMs) : 0
    for (const coin of coins) {
      if (coin.t[coin.t.length - 1] === tMs - HOUR_MS) stepCoin(coin, btc, tMs, market, btcSd)
    }
  }
  const fromMs = Math.min(...coins.map(c => c.t[c.t.length - 1])) + HOUR_MS
  for (let tMs = fromMs; tMs <= targetOpenMs; tMs += HOUR_MS) step(tMs)
  let rows = 0
  for (const coin of coins) {
    const n = coin.t.length - coin.firstNew
    if (n === 0) continue
    const cols = [coin.t, coin.o, coin.h, coin.l, coin.c, coin.v].map(col => Float64Array.from(col.slice(coin.firstNew)))
    // demo candles are regenerated identically after a loss, so they skip the fsyncs
    rows += store.appendCandles(coin.symbol, cols, n, { durable: false }).appended
    if (coin.fundT.length) store.appendFunding(coin.symbol, coin.fundT, coin.fundRate, coin.fundT.length, { durable: false })
  }
  // the forming hour: drawn whole (the others need BTC's return of the hour), its open kept
  const formingMs = targetOpenMs + HOUR_MS
  step(formingMs)
  for (const coin of coins) {
    const k = coin.t.length - 1
    if (coin.t[k] === formingMs) store.setFormingOpen(coin.symbol, formingMs, coin.o[k])
  }
  return rows
}
