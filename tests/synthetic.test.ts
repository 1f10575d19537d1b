/**
 * The synthetic universe: determinism, candle and funding shape, staggered listings,
 * the special markets (stablecoins, non-crypto, liquidity-dead), and hourly returns
 * that look like real ones, measured with the same code on the real Binance data in
 * ../shared/data (skipped, saying so, when that folder is absent).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { CandleStore } from '../src/market/candle-store'
import { median, returnFacts, marketBeta, factsByRankBucket, correlation, type ReturnFacts } from '../src/market/stylized-facts'
import { COIN_LIST, deadPositions, generateSyntheticUniverse, lastCompletedOpenMs } from '../src/market/synthetic'
import { fundingCap } from '../src/market/synthetic-funding'
import { tierOfRank } from '../src/market/synthetic-model'
import { LIQUIDITY_DEAD_USD, Universe } from '../src/market/universe'
import type { Bars } from '../src/market/types'
import { HOUR_MS } from '../src/time'

const END_MS = Date.UTC(2026, 10, 22, 12, 30) // the clock's now: 12:30 UTC
const dirs: string[] = []

function tempStore(): { dir: string; store: CandleStore } {
  const dir = mkdtempSync(join(tmpdir(), 'perpsim-synthetic-'))
  dirs.push(dir)
  return { dir, store: CandleStore.open(dir) }
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** every file under the store with its bytes */
function storeFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (p: string) => {
    for (const name of readdirSync(p)) {
      const q = join(p, name)
      if (statSync(q).isDirectory()) walk(q)
      else out.set(relative(dir, q), readFileSync(q))
    }
  }
  walk(join(dir, 'store'))
  return out
}

function sameFiles(a: Map<string, Buffer>, b: Map<string, Buffer>): boolean {
  if (a.size !== b.size) return false
  for (const [k, v] of a) if (!b.get(k)?.equals(v)) return false
  return true
}

describe('the shipped coin list', () => {
  test('holds at least 535 real USDT-M perpetuals with unique symbols, BTC and ETH first', () => {
    expect(COIN_LIST.length).toBeGreaterThanOrEqual(535)
    expect(new Set(COIN_LIST.map(c => c.symbol)).size).toBe(COIN_LIST.length)
    expect(COIN_LIST[0].symbol).toBe('BTCUSDT')
    expect(COIN_LIST[1].symbol).toBe('ETHUSDT')
    for (const c of COIN_LIST) {
      expect(c.symbol).toMatch(/^[A-Z0-9]{1,20}USDT$/)
      expect(c.name.length).toBeGreaterThan(0)
      expect(c.price_usd).toBeGreaterThan(0)
    }
  })

  test('is in market-cap order: ranks increase down the list', () => {
    const ranks = COIN_LIST.map(c => c.rank).filter((r): r is number => r !== null)
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]).toBeGreaterThan(ranks[i - 1])
  })

  test('mixes in stablecoins, commodities and stock perps, which carry no crypto rank', () => {
    const bySymbol = new Map(COIN_LIST.map(c => [c.symbol, c]))
    for (const s of ['USDCUSDT', 'FDUSDUSDT']) expect(bySymbol.get(s)?.stablecoin).toBe(true)
    for (const s of ['XAUUSDT', 'XAGUSDT']) expect(bySymbol.get(s)?.asset_class).toBe('commodity')
    for (const s of ['TSLAUSDT', 'NVDAUSDT']) expect(bySymbol.get(s)?.asset_class).toBe('stock')
    for (const c of COIN_LIST) if (c.asset_class !== 'crypto') expect(c.rank).toBeNull()
  })
})

describe('generateSyntheticUniverse', () => {
  const small = { coins: 12, days: 20, endMs: END_MS }

  test('the same seed writes the same bytes; another seed writes other prices', () => {
    const a = tempStore(), b = tempStore(), c = tempStore()
    generateSyntheticUniverse(a.store, { ...small, seed: 11 })
    generateSyntheticUniverse(b.store, { ...small, seed: 11 })
    generateSyntheticUniverse(c.store, { ...small, seed: 12 })
    const fa = storeFiles(a.dir)
    expect(fa.size).toBeGreaterThan(small.coins)
    expect(sameFiles(fa, storeFiles(b.dir))).toBe(true)
    expect(sameFiles(fa, storeFiles(c.dir))).toBe(false)
    const ca = a.store.bars('ETHUSDT')!.c, cc = c.store.bars('ETHUSDT')!.c
    let diff = 0
    for (let i = 0; i < Math.min(ca.length, cc.length); i++) if (ca[i] !== cc[i]) diff++
    expect(diff).toBeGreaterThan(ca.length / 2)
  })

  test("a coin's series does not depend on how many coins are generated", () => {
    const a = tempStore(), b = tempStore()
    generateSyntheticUniverse(a.store, { ...small, coins: 3, seed: 5 })
    generateSyntheticUniverse(b.store, { ...small, coins: 12, seed: 5 })
    for (const s of ['BTCUSDT', 'ETHUSDT', 'XRPUSDT']) {
      const x = a.store.bars(s)!, y = b.store.bars(s)!
      expect(Array.from(x.c)).toEqual(Array.from(y.c))
      expect(Array.from(x.v)).toEqual(Array.from(y.v))
    }
  })

  test('returns what it wrote, reports progress per coin and records the synthetic source', () => {
    const { store } = tempStore()
    const progress: number[] = []
    const res = generateSyntheticUniverse(store, { ...small, seed: 3, onProgress: done => progress.push(done) })
    expect(res.coins).toBe(12)
    expect(progress).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    const total = store.symbols().reduce((s, sym) => s + store.bars(sym)!.n, 0)
    expect(res.rows).toBe(total)
    expect(store.isSynthetic()).toBe(true)
    for (const e of COIN_LIST.slice(0, 12)) {
      const m = store.meta(e.symbol)!
      expect(m.name).toBe(e.name)
      expect(m.rank).toBe(e.rank)
      expect(m.stablecoin).toBe(e.stablecoin)
      expect(m.assetClass).toBe(e.asset_class)
      expect(m.listingMs).toBe(store.bars(e.symbol)!.t[0])
    }
  })

  test('refuses a coin count beyond the list or below one', () => {
    const { store } = tempStore()
    expect(() => generateSyntheticUniverse(store, { ...small, coins: COIN_LIST.length + 1, seed: 1 })).toThrow(RangeError)
    expect(() => generateSyntheticUniverse(store, { ...small, coins: 0, seed: 1 })).toThrow(RangeError)
  })
})

// One mid-sized universe shared by the shape and realism tests: 140 coins × 120 days,
// enough for every rank bucket (the 51+ bucket reaches rank ~200).
const UNIVERSE = { coins: 140, days: 120, seed: 7, endMs: END_MS }
let shared: CandleStore

beforeAll(() => {
  shared = tempStore().store
  generateSyntheticUniverse(shared, UNIVERSE)
}, 60_000)

describe('candles of the synthetic universe', () => {
  test('end at the last completed hour: the newest candle closes at or before now, within the hour', () => {
    for (const s of shared.symbols()) {
      const b = shared.bars(s)!
      const closeMs = b.t[b.n - 1] + HOUR_MS
      expect(closeMs).toBeLessThanOrEqual(END_MS)
      expect(closeMs).toBeGreaterThan(END_MS - HOUR_MS)
      expect(b.t[b.n - 1]).toBe(lastCompletedOpenMs(END_MS))
    }
  })

  test('are hourly without gaps and consistent: low ≤ open, close ≤ high, positive prices', () => {
    for (const s of shared.symbols()) {
      const b = shared.bars(s)!
      for (let i = 0; i < b.n; i++) {
        if (i > 0) expect(b.t[i] - b.t[i - 1]).toBe(HOUR_MS)
        const lo = Math.min(b.o[i], b.c[i]), hi = Math.max(b.o[i], b.c[i])
        if (!(b.l[i] <= lo && b.h[i] >= hi && b.l[i] > 0 && b.v[i] >= 0))
          throw new Error(`${s} bar ${i}: o=${b.o[i]} h=${b.h[i]} l=${b.l[i]} c=${b.c[i]} v=${b.v[i]}`)
      }
    }
  })

  test('open at the previous close or a tiny gap from it', () => {
    let same = 0, all = 0
    for (const s of shared.symbols()) {
      const b = shared.bars(s)!
      for (let i = 1; i < b.n; i++) {
        all++
        if (b.o[i] === b.c[i - 1]) same++
        expect(Math.abs(b.o[i] / b.c[i - 1] - 1)).toBeLessThan(0.0011)
      }
    }
    expect(same / all).toBeGreaterThan(0.5)
    expect(same).toBeLessThan(all)
  })

  test('have realistic price levels: BTC in the tens of thousands, stablecoins pinned near 1', () => {
    const btc = shared.bars('BTCUSDT')!
    for (let i = 0; i < btc.n; i += 24) expect(btc.c[i]).toBeGreaterThan(10_000)
    for (const s of ['USDCUSDT', 'USDEUSDT', 'FDUSDUSDT']) {
      const b = shared.bars(s)!
      for (let i = 0; i < b.n; i++) {
        expect(b.l[i]).toBeGreaterThan(0.99)
        expect(b.h[i]).toBeLessThan(1.01)
      }
    }
    const xau = shared.bars('XAUUSDT')!
    expect(xau.c[xau.n - 1]).toBeGreaterThan(1000)
  })

  test('have staggered listing dates: the large caps span the window, some coins list later', () => {
    const firstOpen = lastCompletedOpenMs(END_MS) - (UNIVERSE.days * 24 - 1) * HOUR_MS
    const starts = shared.symbols().map(s => shared.bars(s)!.t[0])
    expect(shared.bars('BTCUSDT')!.t[0]).toBe(firstOpen)
    expect(shared.bars('ETHUSDT')!.t[0]).toBe(firstOpen)
    const late = starts.filter(t => t > firstOpen)
    expect(late.length).toBeGreaterThanOrEqual(5)
    expect(late.length).toBeLessThan(starts.length / 2)
    expect(new Set(late).size).toBeGreaterThan(late.length / 2)
  })

  test('give BTC the lowest volatility of the crypto majors and non-crypto perps a calm one', () => {
    const vol = (s: string) => returnFacts(shared.bars(s)!).volHourly
    const cryptoVols = COIN_LIST.slice(0, UNIVERSE.coins)
      .filter(e => e.asset_class === 'crypto' && !e.stablecoin && e.kind === null && e.symbol !== 'BTCUSDT')
      .map(e => vol(e.symbol))
    expect(vol('BTCUSDT')).toBeLessThan(median(cryptoVols))
    expect(vol('XAUUSDT')).toBeLessThan(vol('BTCUSDT'))
    expect(vol('XAUUSDT')).toBeLessThan(median(cryptoVols) / 2)
    expect(vol('XAGUSDT')).toBeLessThan(0.7 * median(cryptoVols))
    expect(vol('USDCUSDT')).toBeLessThan(0.001)
  })

  test('mark a handful of small coins as liquidity-dead, and only those', () => {
    const dead = deadPositions(COIN_LIST.slice(0, UNIVERSE.coins), UNIVERSE.seed)
    const deadSymbols = new Set([...dead].map(i => COIN_LIST[i].symbol))
    expect(deadSymbols.size).toBeGreaterThanOrEqual(1)
    expect(deadSymbols.size).toBeLessThanOrEqual(Math.ceil(UNIVERSE.coins * 0.03))
    const universe = new Universe(shared)
    for (const coin of universe.all()) {
      expect(coin.liquidityDead).toBe(deadSymbols.has(coin.meta.symbol))
      if (!coin.liquidityDead) expect(coin.medianDailyQuoteUsd).toBeGreaterThan(10 * LIQUIDITY_DEAD_USD)
    }
    // their hours without a trade stand still with no volume
    for (const s of deadSymbols) {
      const b = shared.bars(s)!
      let flat = 0
      for (let i = 0; i < b.n; i++) if (b.v[i] === 0) flat++
      expect(flat / b.n).toBeGreaterThan(0.1)
    }
  })

  test('trade more in volatile hours: volume correlates with the size of the move', () => {
    const f = returnFacts(shared.bars('ETHUSDT')!)
    expect(f.volumeAbsReturnCorr).toBeGreaterThan(0.2)
  })
})

describe('funding of the synthetic universe', () => {
  test('settles at 00/08/16 UTC (some coins every 4 h), only at hours the coin has a candle for', () => {
    let fourHourly = 0
    for (const s of shared.symbols()) {
      const f = shared.funding(s)!
      const b = shared.bars(s)!
      const opens = new Set(b.t)
      expect(f.n).toBeGreaterThan(0)
      const step = f.t[1] - f.t[0]
      expect([4 * HOUR_MS, 8 * HOUR_MS]).toContain(step)
      if (step === 4 * HOUR_MS) fourHourly++
      for (let i = 0; i < f.n; i++) {
        expect(f.t[i] % step).toBe(0)
        expect(opens.has(f.t[i])).toBe(true)
        if (i > 0) expect(f.t[i] - f.t[i - 1]).toBe(step)
      }
      // every settlement hour after the first candle has its event
      const expected = b.t.filter((t, i) => i > 0 && t % step === 0).length
      expect(f.n).toBe(expected)
    }
    expect(fourHourly).toBeGreaterThan(0)
  })

  test('rates sit around 0.01 %, within the caps, and lean with the trend', () => {
    const trend: number[] = [], rates: number[] = []
    for (const s of shared.symbols()) {
      const meta = shared.meta(s)!
      const f = shared.funding(s)!
      const b = shared.bars(s)!
      const step = (f.t[1] - f.t[0]) / HOUR_MS as 4 | 8
      const cap = fundingCap({ everyH: step, tier: tierOfRank(s, meta.rank), stable: meta.stablecoin })
      let k = 0
      for (let i = 0; i < f.n; i++) {
        expect(Math.abs(f.rate[i])).toBeLessThanOrEqual(cap)
        while (b.t[k] < f.t[i]) k++
        if (k >= 169 && !meta.stablecoin) {
          trend.push(Math.log(b.c[k - 1] / b.c[k - 169]))
          rates.push(f.rate[i])
        }
      }
    }
    const m = median(rates)
    expect(m).toBeGreaterThan(0)
    expect(m).toBeLessThanOrEqual(0.0002)
    expect(rates.filter(r => r === 0.0001).length / rates.length).toBeGreaterThan(0.1)
    expect(correlation(trend, rates)).toBeGreaterThan(0.3)
  })
})

// ---------- realism against the real Binance data ----------

const SHARED_DATA = join(import.meta.dir, '../../shared/data')
const REAL_DIRS = ['binance-usdm-1h', 'binance-usdm-1h-recent'].map(d => join(SHARED_DATA, d))
const SNAPSHOT = join(SHARED_DATA, 'universe-snapshot-2026-03-15.csv')
const realMissing = !REAL_DIRS.every(existsSync) || !existsSync(SNAPSHOT)
if (realMissing) console.warn(`skipping the stylized-facts comparison: real data not found under ${SHARED_DATA}`)

/** gzip CSV `open_time_ms,open,high,low,close,volume` with a header row */
function readRealBars(path: string): Bars {
  const lines = gunzipSync(readFileSync(path)).toString('latin1').split('\n')
  const cols = Array.from({ length: 6 }, () => new Float64Array(lines.length))
  let n = 0
  for (const line of lines) {
    const ch = line.charCodeAt(0)
    if (!(ch >= 48 && ch <= 57)) continue // header or blank
    const p = line.split(',')
    for (let k = 0; k < 6; k++) cols[k][n] = Number(p[k])
    n++
  }
  const [t, o, h, l, c, v] = cols.map(col => col.subarray(0, n))
  return { t, o, h, l, c, v, n, stepMs: HOUR_MS }
}

interface CoinFacts {
  symbol: string
  rank: number | null
  facts: ReturnFacts
  corr: number
}

function realFacts(): CoinFacts[] {
  const ranks = new Map<string, number | null>()
  for (const line of readFileSync(SNAPSHOT, 'utf8').split('\n').slice(1)) {
    const p = line.split(',')
    if (p[0]) ranks.set(p[0], p[2] ? Number(p[2]) : null)
  }
  const out: CoinFacts[] = []
  for (const dir of REAL_DIRS) {
    const btc = readRealBars(join(dir, 'BTCUSDT.csv.gz'))
    for (const f of readdirSync(dir).filter(f => f.endsWith('.csv.gz'))) {
      const symbol = f.slice(0, -'.csv.gz'.length)
      const bars = readRealBars(join(dir, f))
      out.push({ symbol, rank: ranks.get(symbol) ?? null, facts: returnFacts(bars), corr: marketBeta(bars, btc).corr })
    }
  }
  return out
}

/** the coins a top-N run would trade: crypto, not stablecoins, not liquidity-dead */
function syntheticFacts(store: CandleStore): CoinFacts[] {
  const btc = store.bars('BTCUSDT')!
  return new Universe(store).eligible().map(c => {
    const bars = store.bars(c.meta.symbol)!
    return { symbol: c.meta.symbol, rank: c.meta.rank, facts: returnFacts(bars), corr: marketBeta(bars, btc).corr }
  })
}

describe('stylized facts: synthetic hourly returns fall in the ranges of real ones', () => {
  let real: CoinFacts[] = []
  let synth: CoinFacts[] = []
  const range = (xs: number[]) => [Math.min(...xs), Math.max(...xs)] as const
  const pick = (cs: CoinFacts[], f: (c: CoinFacts) => number) => cs.map(f).filter(Number.isFinite)

  // reading the real set and the facts of 140 coins takes 3–7 s on a busy machine: beyond
  // the default 5 s a hook gets
  beforeAll(() => {
    if (realMissing) return
    real = realFacts()
    synth = syntheticFacts(shared)
  }, 60_000)

  test.skipIf(realMissing)('volatility by rank bucket: each synthetic median inside the real bucket, rising with rank', () => {
    const rb = factsByRankBucket(real)
    const sb = factsByRankBucket(synth)
    for (let k = 0; k < rb.length; k++) {
      expect(rb[k].coins).toBeGreaterThan(3)
      expect(sb[k].coins).toBeGreaterThan(3)
      expect(sb[k].volMedian).toBeGreaterThanOrEqual(rb[k].volMin)
      expect(sb[k].volMedian).toBeLessThanOrEqual(rb[k].volMax)
    }
    // the real data rises from the top 10 to the small caps, and so must the synthetic
    expect(rb[0].volMedian).toBeLessThan(rb[2].volMedian)
    expect(sb[0].volMedian).toBeLessThan(sb[1].volMedian)
    expect(sb[1].volMedian).toBeLessThan(sb[2].volMedian)
  })

  test.skipIf(realMissing)('fat tails: excess kurtosis far above normal, as in the real data', () => {
    const [lo, hi] = range(pick(real, c => c.facts.excessKurtosis))
    expect(median(pick(real, c => c.facts.excessKurtosis))).toBeGreaterThan(5)
    const ks = pick(synth, c => c.facts.excessKurtosis)
    expect(median(ks)).toBeGreaterThan(5)
    expect(median(ks)).toBeGreaterThanOrEqual(lo)
    expect(median(ks)).toBeLessThanOrEqual(hi)
    expect(ks.filter(k => k >= lo && k <= hi).length / ks.length).toBeGreaterThan(0.8)
  })

  test.skipIf(realMissing)('volatility clustering: autocorrelation of |r| over lags 1..24 positive and in the real range', () => {
    const [lo, hi] = range(pick(real, c => c.facts.absAcfMean))
    expect(lo).toBeGreaterThan(0)
    const acf = pick(synth, c => c.facts.absAcfMean)
    for (const a of acf) expect(a).toBeGreaterThan(0)
    expect(median(acf)).toBeGreaterThanOrEqual(lo)
    expect(median(acf)).toBeLessThanOrEqual(hi)
    expect(acf.filter(a => a >= lo && a <= hi).length / acf.length).toBeGreaterThan(0.8)
  })

  test.skipIf(realMissing)('no free lunch, realistic ranges, volume and BTC co-movement as in the real data', () => {
    const within = (f: (c: CoinFacts) => number) => {
      const [lo, hi] = range(pick(real, f))
      const m = median(pick(synth, f))
      expect(m).toBeGreaterThanOrEqual(lo)
      expect(m).toBeLessThanOrEqual(hi)
    }
    within(c => c.facts.retAcf1)
    within(c => c.facts.rangeToVol)
    within(c => c.facts.volumeAbsReturnCorr)
    within(c => (c.symbol === 'BTCUSDT' ? NaN : c.corr))
    expect(Math.abs(median(pick(synth, c => c.facts.retAcf1)))).toBeLessThan(0.05)
  })
})
