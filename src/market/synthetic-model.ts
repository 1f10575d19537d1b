/**
 * The synthetic market's parameters: the shipped coin list, per-coin parameters by tier,
 * and the constants of the volatility, jump, gap and range model. The rules that turn
 * them into each hour's bar are synthetic-ticks.ts; both are shared by the generator
 * (synthetic.ts) and the demo continuation (synthetic-demo.ts), so both write candles of
 * the same shape. The formulas are written down in docs/data.md, "Synthetic universe".
 */
import coinList from '../../assets/coins.json'
import { Rng } from './synthetic-rng'
import type { AssetClass, CoinMeta } from './types'

export type Tier = 'major' | 'large' | 'mid' | 'small' | 'micro'

/** One entry of assets/coins.json: a real USDT-M perpetual, written from public knowledge. */
export interface CoinListEntry {
  symbol: string
  name: string
  /** approximate market-cap rank; null for non-crypto and unranked coins */
  rank: number | null
  stablecoin: boolean
  asset_class: 'crypto' | 'stock' | 'commodity'
  tier: Tier | null
  /** 'meme' trades wilder; 'gold' is a gold-backed token that moves like gold */
  kind: 'meme' | 'gold' | null
  /** a rough recent price level (USDT), used as the generated series' last close */
  price_usd: number
}

export const COIN_LIST: readonly CoinListEntry[] = coinList as CoinListEntry[]

const COIN_BY_SYMBOL = new Map(COIN_LIST.map(c => [c.symbol, c]))

export function coinListEntry(symbol: string): CoinListEntry | undefined {
  return COIN_BY_SYMBOL.get(symbol)
}

/** how a coin's returns are generated */
export type Behaviour = 'crypto' | 'stable' | 'commodity' | 'stock'

export function behaviourOf(e: { stablecoin: boolean; asset_class: string; kind?: string | null }): Behaviour {
  if (e.stablecoin) return 'stable'
  if (e.asset_class === 'stock') return 'stock'
  if (e.asset_class === 'commodity' || e.kind === 'gold') return 'commodity'
  return 'crypto'
}

export function tierOfRank(symbol: string, rank: number | null): Tier {
  if (symbol === 'BTCUSDT' || symbol === 'ETHUSDT') return 'major'
  if (rank === null) return 'micro'
  if (rank <= 20) return 'large'
  if (rank <= 100) return 'mid'
  if (rank <= 300) return 'small'
  return 'micro'
}

// ---------- volatility model constants (docs/data.md) ----------

/** GARCH(1,1) on unit-mean variance: h' = (1 − α − β) + α·z²·h + β·h */
export const GARCH_ALPHA = 0.1
export const GARCH_BETA = 0.88
/** cap on z² fed back into h, so a single huge shock cannot explode the variance */
export const GARCH_SHOCK_CAP = 20
/** slow volatility regime: log-vol AR(1) with a ~3-week memory */
export const REGIME_PHI = 1 - 1 / 500
export const MARKET_REGIME_SD = 0.35
export const IDIO_REGIME_SD = 0.25
/**
 * An idiosyncratic jump: down with probability JUMP_DOWN_SHARE, of size
 * (JUMP_MIN + JUMP_EXP·E) hourly volatilities with E ~ Exp(1)
 */
export const JUMP_DOWN_SHARE = 0.6
export const JUMP_MIN = 4
export const JUMP_EXP = 6
/** Student-t innovations are clipped here: t(4) draws beyond ±12 sd are jumps' business */
export const INNOVATION_CAP = 12

/** hourly probability of a market-wide crash (BTC −4 %·e^{0.35·N}) and squeeze (+3 %·e^{0.3·N}) */
export const CRASH_PROB = 2 / 8760
export const SQUEEZE_PROB = 1 / 8760

/** stationary AR(1) coefficient of a stablecoin's log deviation from its peg */
export const STABLE_PHI = 0.97
/** share of bars whose open differs from the previous close by a tiny gap, its size (× the bar's sd), its cap */
export const GAP_SHARE = 0.4
export const GAP_SCALE = 0.03
export const GAP_MAX = 0.001

/** intrabar scale relative to the bar's volatility (hourly bars are not continuous paths) */
export const RANGE_SCALE = 0.95

/**
 * Median hourly log-return volatility (unconditional) by market-cap rank: it rises
 * smoothly from the large caps to the small ones, VOL_AT_RANK_10·(rank/10)^VOL_RANK_EXP
 * (0.92 % at rank 10, 1.11 % at 30, 1.46 % at 150, 1.85 % at 600); ETH and BTC are set apart
 */
const VOL_AT_RANK_10 = 0.0092
const VOL_RANK_EXP = 0.17
const UNRANKED_AS_RANK = 700
const ETH_VOL = 0.0078
const BTC_VOL = 0.006

function medianVolOfRank(symbol: string, rank: number | null): number {
  if (symbol === 'ETHUSDT') return ETH_VOL
  return VOL_AT_RANK_10 * Math.pow(Math.max(3, rank ?? UNRANKED_AS_RANK) / 10, VOL_RANK_EXP)
}
const TIER_VOL_SD: Record<Tier, number> = { major: 0.05, large: 0.2, mid: 0.22, small: 0.25, micro: 0.28 }
/** correlation with the market factor (BTC) */
const TIER_CORR: Record<Tier, [number, number]> = {
  major: [0.85, 0.03],
  large: [0.74, 0.08],
  mid: [0.68, 0.1],
  small: [0.6, 0.12],
  micro: [0.5, 0.16],
}
const TIER_JUMP_PROB: Record<Tier, number> = { major: 1 / 8000, large: 1 / 5000, mid: 1 / 3000, small: 1 / 2000, micro: 1 / 1200 }
/** expected annual log drift */
const TIER_DRIFT: Record<Tier, number> = { major: 0.05, large: 0, mid: -0.15, small: -0.3, micro: -0.45 }
/** share of coins whose listing falls inside the window */
const TIER_LATE_LISTING: Record<Tier, number> = { major: 0, large: 0, mid: 0.15, small: 0.35, micro: 0.55 }

export function jumpProbOf(tier: Tier): number {
  return TIER_JUMP_PROB[tier]
}

/** every per-coin figure the generator uses; derived from (seed, symbol, list entry) */
export interface CoinParams {
  entry: CoinListEntry
  behaviour: Behaviour
  tier: Tier
  /** unconditional hourly volatility of log returns */
  volHourly: number
  /** sensitivity to the market factor, and the idiosyncratic volatility left over */
  beta: number
  idioVol: number
  /** extra depth of market crashes for this coin (1 = its beta's share) */
  crashAmp: number
  nu: 4 | 6 | 8
  driftHourly: number
  jumpProb: number
  /** first bar index (inside the window) of the coin; 0 = listed before the window */
  listingIdx: number
  listedInside: boolean
  /** a freshly listed token trades wildly for its first days */
  listingFrenzy: boolean
  /** median daily quote volume over the last 30 days (USDT) that the volumes are scaled to */
  dailyQuoteUsd: number
  /** liquidity-dead: tiny volume and hours without a trade */
  dead: boolean
  /** probability of an hour without any trade */
  flatProb: number
  /** price of the last close */
  endPrice: number
  fundingEveryH: 4 | 8
  seasonality: Seasonality
  /** a delisting coin (DELISTINGS): the bar index of its last candle; null for every listed coin */
  delistIdx: number | null
  /** bars of the collapse before the delisting, and its total log-price drop (negative) */
  collapseBars: number
  collapseLogDrop: number
}

/**
 * Coins that collapse and are delisted inside the window, as LUNA, FTT and SRM were:
 * generated beside the shipped list (GenerateOptions.delistings), never part of today's
 * universe. `price_usd` is the last price, after the collapse; `collapse` its depth.
 */
export interface DelistingEntry extends CoinListEntry {
  /** log-price drop of the collapse (−7 ≈ −99.9 %) */
  collapse: number
}

export const DELISTINGS: readonly DelistingEntry[] = [
  { symbol: 'LUNAUSDT', name: 'Terra', rank: 8, stablecoin: false, asset_class: 'crypto', tier: 'large', kind: null, price_usd: 0.0002, collapse: -9 },
  { symbol: 'FTTUSDT', name: 'FTX Token', rank: 25, stablecoin: false, asset_class: 'crypto', tier: 'mid', kind: null, price_usd: 1.2, collapse: -2.8 },
  { symbol: 'SRMUSDT', name: 'Serum', rank: 60, stablecoin: false, asset_class: 'crypto', tier: 'mid', kind: null, price_usd: 0.08, collapse: -2.5 },
  { symbol: 'TOMOUSDT', name: 'TomoChain', rank: 120, stablecoin: false, asset_class: 'crypto', tier: 'small', kind: null, price_usd: 0.6, collapse: -1.6 },
  { symbol: 'ANCUSDT', name: 'Anchor Protocol', rank: 180, stablecoin: false, asset_class: 'crypto', tier: 'small', kind: null, price_usd: 0.02, collapse: -3.5 },
  { symbol: 'BTSUSDT', name: 'BitShares', rank: 300, stablecoin: false, asset_class: 'crypto', tier: 'micro', kind: null, price_usd: 0.004, collapse: -2 },
]

/**
 * A delisting coin's parameters: its coin parameters (coinParams, own stream), listed
 * from the window's start (the first two) or within its first fifth, delisted between
 * 35 % and 80 % of the window after a collapse of 5 to 20 days. Its volumes are scaled to
 * its rank's level over its last 30 days (the collapse), so it traded several times that
 * before, as a top coin does.
 */
export function delistingParams(entry: DelistingEntry, index: number, seed: number, nBars: number): CoinParams {
  const base = coinParams(entry, seed, nBars, false)
  const rng = new Rng(seed, `delisting:${entry.symbol}`)
  const listingIdx = index < 2 ? 0 : Math.floor(nBars * 0.2 * rng.uniform())
  const lo = Math.max(listingIdx + 60 * 24, Math.floor(nBars * 0.35))
  const hi = Math.max(lo + 1, Math.floor(nBars * 0.8))
  const delistIdx = Math.min(nBars - 1, lo + rng.int(hi - lo))
  const collapseBars = Math.min(delistIdx - listingIdx, 24 * (5 + rng.int(16)))
  return {
    ...base,
    listingIdx,
    listedInside: listingIdx > 0,
    listingFrenzy: listingIdx > 0,
    delistIdx,
    collapseBars,
    collapseLogDrop: entry.collapse,
  }
}

/**
 * A coin's parameters: drawn from its own (seed, symbol) stream, so they do not depend
 * on which other coins are generated; `nBars` (the window) only places a late listing,
 * `dead` makes it a liquidity-dead market.
 */
export function coinParams(
  entry: CoinListEntry,
  seed: number,
  nBars: number,
  dead: boolean,
): CoinParams {
  const rng = new Rng(seed, `params:${entry.symbol}`)
  const behaviour = behaviourOf(entry)
  const tier = entry.tier ?? tierOfRank(entry.symbol, entry.rank)
  const lognormal = (median: number, sd: number) => median * Math.exp(sd * rng.normal())
  const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x))

  let vol: number, corr: number, nu: 4 | 6 | 8 = 4, driftYear: number, jumpProb: number
  let crashAmp = 0
  let seasonality: Seasonality = 'crypto'
  let dailyQuote: number
  const rankForVolume = entry.rank ?? UNRANKED_AS_RANK
  if (behaviour === 'stable') {
    vol = lognormal(0.0004, 0.3) // stationary sd of the log deviation from the peg
    corr = 0
    nu = 6
    driftYear = 0
    jumpProb = 0
    dailyQuote = lognormal(2.5e8, 0.5)
  } else if (behaviour === 'commodity') {
    vol = entry.symbol === 'XAGUSDT' ? lognormal(0.0045, 0.1) : lognormal(0.0026, 0.1)
    corr = clamp(0.08 + 0.05 * rng.normal(), 0, 0.3)
    nu = 6
    driftYear = 0.08 + 0.15 * rng.normal()
    jumpProb = 1 / 8000
    seasonality = 'commodity'
    dailyQuote = entry.symbol === 'XAUUSDT' ? lognormal(4e8, 0.3) : lognormal(8e7, 0.5)
  } else if (behaviour === 'stock') {
    vol = lognormal(0.0062, 0.3)
    corr = clamp(0.3 + 0.12 * rng.normal(), 0.05, 0.6)
    nu = 6
    driftYear = 0.1 + 0.3 * rng.normal()
    jumpProb = 1 / 3000
    seasonality = 'stock'
    dailyQuote = lognormal(5e7, 0.6)
  } else {
    const meme = entry.kind === 'meme'
    vol = entry.symbol === 'BTCUSDT' ? BTC_VOL : lognormal(medianVolOfRank(entry.symbol, entry.rank), TIER_VOL_SD[tier]) * (meme ? 1.25 : 1)
    const [cm, cs] = TIER_CORR[tier]
    corr = entry.symbol === 'BTCUSDT' ? 1 : clamp(cm + cs * rng.normal(), 0.1, 0.92) * (meme ? 0.9 : 1)
    driftYear = TIER_DRIFT[tier] + (meme ? -0.1 : 0) + 0.35 * rng.normal()
    jumpProb = TIER_JUMP_PROB[tier] * (meme ? 1.5 : 1)
    crashAmp = entry.symbol === 'BTCUSDT' ? 1 : 1 + rng.uniform() * (tier === 'large' ? 0.6 : 1.2)
    dailyQuote = 1.2e10 * Math.pow(rankForVolume, -1.15) * Math.exp(0.5 * rng.normal())
  }
  // drawn for every coin, so a coin's other figures do not depend on whether it is dead
  const deadQuote = 15_000 + 45_000 * rng.uniform()
  if (dead) dailyQuote = deadQuote

  // staggered listings: whole window for the large caps, some later listings below
  let listingIdx = 0
  const lateShare = behaviour === 'crypto' ? TIER_LATE_LISTING[tier] : behaviour === 'stable' ? 0.3 : 1
  const late = rng.uniform() < lateShare && entry.symbol !== 'BTCUSDT'
  if (late) {
    // leave at least a month (or a third of a short window) of history after the listing
    const lo = Math.floor(nBars * (behaviour === 'crypto' ? 0.05 : 0.4))
    const hi = Math.max(lo + 1, nBars - Math.min(30 * 24, Math.floor(nBars / 3)))
    listingIdx = lo + rng.int(hi - lo)
    if (behaviour === 'crypto') driftYear -= 0.3 // freshly listed tokens tend to bleed
  }

  const flatProb = 0.25 + 0.2 * rng.uniform()
  const endPrice = entry.price_usd * Math.exp(0.15 * rng.normal())
  const btcShare = behaviour === 'stable' ? 0 : corr
  const beta = (btcShare * vol) / BTC_VOL
  const idioVol = vol * Math.sqrt(Math.max(0, 1 - btcShare * btcShare))
  const fundingEveryH: 4 | 8 =
    behaviour === 'crypto' && tier !== 'major' && tier !== 'large' && (entry.rank ?? 999) > 50 && rng.uniform() < (late ? 0.6 : 0.4)
      ? 4
      : 8

  return {
    entry,
    behaviour,
    tier,
    volHourly: vol,
    beta,
    idioVol,
    crashAmp,
    nu,
    driftHourly: driftYear / 8760,
    jumpProb,
    listingIdx,
    listedInside: listingIdx > 0,
    listingFrenzy: listingIdx > 0 && behaviour === 'crypto',
    dailyQuoteUsd: dailyQuote,
    dead,
    flatProb: dead ? flatProb : 0,
    endPrice: behaviour === 'stable' ? 1 : endPrice,
    fundingEveryH,
    seasonality,
    delistIdx: null,
    collapseBars: 0,
    collapseLogDrop: 0,
  }
}

export const BTC_HOURLY_VOL = BTC_VOL

/** which intraday and weekly pattern a coin's volatility follows */
export type Seasonality = 'crypto' | 'stock' | 'commodity'

export function metaOf(entry: CoinListEntry, listingMs: number, delistedMs: number | null = null): CoinMeta {
  return {
    symbol: entry.symbol,
    name: entry.name,
    // a delisted coin has no market cap today: it ranks only in the rank history of the days it traded
    rank: delistedMs === null ? entry.rank : null,
    stablecoin: entry.stablecoin,
    assetClass: entry.asset_class as AssetClass,
    listingMs,
    ...(delistedMs === null ? {} : { status: 'delisted' as const, delistedMs }),
  }
}
