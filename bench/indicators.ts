/**
 * Indicator speed: ns per bar of our kernels and of the npm indicator libraries on the same
 * candles (the 28-coin 1h set in ../shared/data/binance-usdm-1h), measured in one run.
 *
 *   ./node_modules/.bin/bun bench/indicators.ts [--coins 28] [--reps 15] [--only <name part>[,<name part>…]]
 *
 * "ours" calls the kernel with preallocated outputs (how the engine calls it); "registry" is
 * INDICATORS[id].compute filling every field of that indicator into preallocated columns
 * (how the strategy compiler calls it). Each
 * library gets its preferred input (plain arrays or candle objects, built before timing) and
 * allocates its own output, as its API requires. Figures are the best of several repetitions.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { IndicatorsSync } from '@ixjb94/indicators'
import * as its from 'indicatorts'
import * as ti from 'technicalindicators'
import * as tsig from 'trading-signals'
import { adx } from '../src/indicators/adx'
import { aroon } from '../src/indicators/aroon'
import { atr, trueRange } from '../src/indicators/atr'
import { bollinger } from '../src/indicators/bollinger'
import { candleFeatures } from '../src/indicators/candle'
import { cci } from '../src/indicators/cci'
import { donchian, keltner } from '../src/indicators/channels'
import { heikinAshi } from '../src/indicators/heikin-ashi'
import { historicalVolatility } from '../src/indicators/hv'
import { ichimoku } from '../src/indicators/ichimoku'
import { ema, ratioToMean, sma } from '../src/indicators/ma'
import { macd } from '../src/indicators/macd'
import { INDICATORS } from '../src/indicators/registry'
import { roc } from '../src/indicators/roc'
import { rsi, stochRsi } from '../src/indicators/rsi'
import { sar } from '../src/indicators/sar'
import { stoch, willr } from '../src/indicators/stoch'
import { supertrend } from '../src/indicators/supertrend'
import { mfi, obv, volRatio } from '../src/indicators/volume'
import type { Bars } from '../src/market/types'

const DATA_DIR = join(import.meta.dir, '../../shared/data/binance-usdm-1h')
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

/** 1h candles from a gzip CSV `open_time_ms,open,high,low,close,volume` */
function loadCandles(path: string): Bars {
  const lines = new TextDecoder().decode(gunzipSync(readFileSync(path))).split('\n')
  const rows = lines.filter((line, k) => k > 0 && line.length > 0)
  const n = rows.length
  const cols = Array.from({ length: 6 }, () => new Float64Array(n))
  for (let r = 0; r < n; r++) {
    const cells = rows[r].split(',')
    for (let c = 0; c < 6; c++) cols[c][r] = Number(cells[c])
  }
  const [t, o, h, l, c, v] = cols
  return { t, o, h, l, c, v, n, stepMs: 3_600_000 }
}

interface LibInput {
  o: number[]
  h: number[]
  l: number[]
  c: number[]
  v: number[]
  candles: { open: number; high: number; low: number; close: number; volume: number }[]
}

type Lib = 'ixjb94' | 'technicalindicators' | 'trading-signals' | 'indicatorts'
const LIBS: Lib[] = ['ixjb94', 'technicalindicators', 'trading-signals', 'indicatorts']

interface Case {
  name: string
  registry?: [string, Record<string, number>]
  ours: (b: Bars, out: Float64Array[]) => void
  libs: Partial<Record<Lib, (x: LibInput) => unknown>>
}

const ix = new IndicatorsSync()
const feed = <T>(ind: { update(x: T, replace: boolean): unknown }, xs: T[]) => {
  let last: unknown = null
  for (const x of xs) last = ind.update(x, false)
  return last
}

const CASES: Case[] = [
  {
    name: 'SMA(20)',
    registry: ['sma', { fast: 20, slow: 20 }],
    ours: (b, o) => sma(b.c, 20, o[0]),
    libs: {
      ixjb94: (x) => ix.sma(x.c, 20),
      technicalindicators: (x) => ti.SMA.calculate({ period: 20, values: x.c }),
      'trading-signals': (x) => feed(new tsig.SMA(20), x.c),
      indicatorts: (x) => its.sma(x.c, { period: 20 }),
    },
  },
  {
    name: 'EMA(20)',
    ours: (b, o) => ema(b.c, 20, o[0]),
    libs: {
      ixjb94: (x) => ix.ema(x.c, 20),
      technicalindicators: (x) => ti.EMA.calculate({ period: 20, values: x.c }),
      'trading-signals': (x) => feed(new tsig.EMA(20), x.c),
      indicatorts: (x) => its.ema(x.c, { period: 20 }),
    },
  },
  {
    name: 'Bollinger(20, 2)',
    registry: ['bb', {}],
    ours: (b, o) => bollinger(b.c, 20, 2, o[0], o[1], o[2]),
    libs: {
      ixjb94: (x) => ix.bbands(x.c, 20, 2),
      technicalindicators: (x) => ti.BollingerBands.calculate({ period: 20, stdDev: 2, values: x.c }),
      'trading-signals': (x) => feed(new tsig.BollingerBands(20, 2), x.c),
      indicatorts: (x) => its.bb(x.c, { period: 20 }),
    },
  },
  {
    name: 'RSI(14)',
    registry: ['rsi', {}],
    ours: (b, o) => rsi(b.c, 14, o[0]),
    libs: {
      ixjb94: (x) => ix.rsi(x.c, 14),
      technicalindicators: (x) => ti.RSI.calculate({ period: 14, values: x.c }),
      'trading-signals': (x) => feed(new tsig.RSI(14), x.c),
      indicatorts: (x) => its.rsi(x.c, { period: 14 }),
    },
  },
  {
    name: 'True range',
    ours: (b, o) => trueRange(b.h, b.l, b.c, o[0]),
    libs: {
      ixjb94: (x) => ix.tr(x.h, x.l, x.c),
      technicalindicators: (x) => ti.TrueRange.calculate({ high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.TR(), x.candles),
      indicatorts: (x) => its.tr(x.h, x.l, x.c),
    },
  },
  {
    name: 'ATR(14)',
    ours: (b, o) => atr(b.h, b.l, b.c, 14, o[0], b.n, undefined, o[1]),
    libs: {
      ixjb94: (x) => ix.atr(x.h, x.l, x.c, 14),
      technicalindicators: (x) => ti.ATR.calculate({ period: 14, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.ATR(14), x.candles),
      indicatorts: (x) => its.atr(x.h, x.l, x.c, { period: 14 }),
    },
  },
  {
    name: 'ATR + NATR + TR + ATR ratio',
    registry: ['atr', {}],
    ours: (b, o) => {
      atr(b.h, b.l, b.c, 14, o[0], b.n, o[1], o[2])
      ratioToMean(o[0], 14, o[3])
    },
    libs: {},
  },
  {
    name: 'ADX / +DI / −DI (14)',
    registry: ['adx', {}],
    ours: (b, o) => adx(b.h, b.l, b.c, 14, o[0], o[1], o[2]),
    libs: {
      ixjb94: (x) => [ix.adx(x.h, x.l, 14), ix.di(x.h, x.l, x.c, 14)],
      technicalindicators: (x) => ti.ADX.calculate({ period: 14, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.ADX(14), x.candles),
    },
  },
  {
    name: 'MACD(12, 26, 9)',
    registry: ['macd', {}],
    ours: (b, o) => macd(b.c, 12, 26, 9, o[0], o[1], o[2]),
    libs: {
      ixjb94: (x) => ix.macd(x.c, 12, 26, 9),
      technicalindicators: (x) =>
        ti.MACD.calculate({ values: x.c, fastPeriod: 12, slowPeriod: 26, signalPeriod: 9, SimpleMAOscillator: false, SimpleMASignal: false }),
      'trading-signals': (x) => feed(new tsig.MACD(new tsig.EMA(12), new tsig.EMA(26), new tsig.EMA(9)), x.c),
      indicatorts: (x) => its.macd(x.c, { fast: 12, slow: 26, signal: 9 }),
    },
  },
  {
    name: 'Stochastic(14, 3, 3)',
    registry: ['stoch', {}],
    ours: (b, o) => stoch(b.h, b.l, b.c, 14, 3, 3, o[0], o[1]),
    libs: {
      ixjb94: (x) => ix.stoch(x.h, x.l, x.c, 14, 3, 3),
      technicalindicators: (x) => ti.Stochastic.calculate({ period: 14, signalPeriod: 3, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.StochasticOscillator({ kPeriod: 14, kSlowingPeriod: 3, dPeriod: 3 }), x.candles),
      indicatorts: (x) => its.stoch(x.h, x.l, x.c, { kPeriod: 14, dPeriod: 3 }),
    },
  },
  {
    name: 'Stoch RSI(14, 14, 3, 3)',
    registry: ['stochrsi', {}],
    ours: (b, o) => stochRsi(b.c, 14, 14, 3, 3, o[0], o[1]),
    libs: {
      ixjb94: (x) => ix.stochrsi(x.c, 14),
      technicalindicators: (x) =>
        ti.StochasticRSI.calculate({ values: x.c, rsiPeriod: 14, stochasticPeriod: 14, kPeriod: 3, dPeriod: 3 }),
      'trading-signals': (x) => feed(new tsig.StochasticRSI(14), x.c),
    },
  },
  {
    name: 'Williams %R(14)',
    registry: ['willr', {}],
    ours: (b, o) => willr(b.h, b.l, b.c, 14, o[0]),
    libs: {
      ixjb94: (x) => ix.willr(x.h, x.l, x.c, 14),
      technicalindicators: (x) => ti.WilliamsR.calculate({ period: 14, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.WilliamsR(14), x.candles),
      indicatorts: (x) => its.willr(x.h, x.l, x.c, { period: 14 }),
    },
  },
  {
    name: 'CCI(20)',
    registry: ['cci', {}],
    ours: (b, o) => cci(b.h, b.l, b.c, 20, o[0]),
    libs: {
      ixjb94: (x) => ix.cci(x.h, x.l, x.c, 20),
      technicalindicators: (x) => ti.CCI.calculate({ period: 20, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.CCI(20), x.candles),
      indicatorts: (x) => its.cci(x.h, x.l, x.c, { period: 20 }),
    },
  },
  {
    name: 'MFI(14)',
    registry: ['mfi', {}],
    ours: (b, o) => mfi(b.h, b.l, b.c, b.v, 14, o[0]),
    libs: {
      ixjb94: (x) => ix.mfi(x.h, x.l, x.c, x.v, 14),
      technicalindicators: (x) => ti.MFI.calculate({ period: 14, high: x.h, low: x.l, close: x.c, volume: x.v }),
      'trading-signals': (x) => feed(new tsig.MFI(14), x.candles),
      indicatorts: (x) => its.mfi(x.h, x.l, x.c, x.v, { period: 14 }),
    },
  },
  {
    name: 'OBV',
    registry: ['obv', {}],
    ours: (b, o) => obv(b.c, b.v, o[0]),
    libs: {
      ixjb94: (x) => ix.obv(x.c, x.v),
      technicalindicators: (x) => ti.OBV.calculate({ close: x.c, volume: x.v }),
      'trading-signals': (x) => feed(new tsig.OBV(2), x.candles),
      indicatorts: (x) => its.obv(x.c, x.v),
    },
  },
  {
    name: 'Aroon(14)',
    registry: ['aroon', {}],
    ours: (b, o) => aroon(b.h, b.l, 14, o[0], o[1]),
    libs: {
      ixjb94: (x) => ix.aroon(x.h, x.l, 14),
      'trading-signals': (x) => feed(new tsig.Aroon(14), x.candles),
      indicatorts: (x) => its.aroon(x.h, x.l, { period: 14 }),
    },
  },
  {
    name: 'Parabolic SAR(0.02, 0.2)',
    registry: ['sar', {}],
    ours: (b, o) => sar(b.h, b.l, 0.02, 0.2, o[0], b.n, o[1]),
    libs: {
      ixjb94: (x) => ix.psar(x.h, x.l, 0.02, 0.2),
      technicalindicators: (x) => ti.PSAR.calculate({ step: 0.02, max: 0.2, high: x.h, low: x.l }),
      'trading-signals': (x) => feed(new tsig.PSAR({ accelerationStep: 0.02, accelerationMax: 0.2 }), x.candles),
      indicatorts: (x) => its.psar(x.h, x.l, x.c, { step: 0.02, max: 0.2 }),
    },
  },
  {
    name: 'ROC(10)',
    registry: ['roc', {}],
    ours: (b, o) => roc(b.c, 10, o[0]),
    libs: {
      ixjb94: (x) => ix.roc(x.c, 10),
      technicalindicators: (x) => ti.ROC.calculate({ period: 10, values: x.c }),
      'trading-signals': (x) => feed(new tsig.ROC(10), x.c),
      indicatorts: (x) => its.roc(x.c, { period: 10 }),
    },
  },
  {
    name: 'Donchian(20)',
    ours: (b, o) => donchian(b.h, b.l, 20, o[0], o[1], o[2]),
    libs: {
      ixjb94: (x) => ix.dc(x.h, x.l, 20),
      'trading-signals': (x) => feed(new tsig.DonchianChannels(20), x.candles),
      indicatorts: (x) => its.dc(x.c, { period: 20 }),
    },
  },
  {
    name: 'Keltner(20, 10, 2)',
    registry: ['keltner', {}],
    ours: (b, o) => keltner(b.h, b.l, b.c, 20, 10, 2, o[0], o[1], o[2]),
    libs: {
      ixjb94: (x) => ix.kc(x.h, x.l, x.c, 20, 2),
      technicalindicators: (x) =>
        ti.KeltnerChannels.calculate({ maPeriod: 20, atrPeriod: 10, useSMA: false, multiplier: 2, high: x.h, low: x.l, close: x.c }),
      'trading-signals': (x) => feed(new tsig.KeltnerChannels({ emaInterval: 20, atrInterval: 10, multiplier: 2 }), x.candles),
      indicatorts: (x) => its.kc(x.h, x.l, x.c, { period: 20 }),
    },
  },
  {
    name: 'Supertrend(10, 3)',
    registry: ['supertrend', {}],
    ours: (b, o) => supertrend(b.h, b.l, b.c, 10, 3, o[0], o[1]),
    libs: {
      'trading-signals': (x) => feed(new tsig.SuperTrend({ interval: 10, multiplier: 3 }), x.candles),
    },
  },
  {
    name: 'Ichimoku(9, 26, 52, 26)',
    ours: (b, o) => ichimoku(b.h, b.l, 9, 26, 52, 26, { tenkan: o[0], kijun: o[1], senkouA: o[2], senkouB: o[3] }),
    libs: {
      technicalindicators: (x) =>
        ti.IchimokuCloud.calculate({ high: x.h, low: x.l, conversionPeriod: 9, basePeriod: 26, spanPeriod: 52, displacement: 26 }),
      'trading-signals': (x) => feed(new tsig.IchimokuCloud({ conversionInterval: 9, baseInterval: 26, spanBInterval: 52 }), x.candles),
      // indicatorts' ichimokuCloud is quadratic (~0.7 ms per bar on 32k bars), so it is left out
    },
  },
  {
    name: 'Heikin-Ashi',
    ours: (b, o) => heikinAshi(b.o, b.h, b.l, b.c, { open: o[0], high: o[1], low: o[2], close: o[3] }),
    libs: {
      technicalindicators: (x) => ti.HeikinAshi.calculate({ open: x.o, high: x.h, low: x.l, close: x.c }),
    },
  },
  {
    name: 'Historical volatility(20)',
    registry: ['hv', {}],
    ours: (b, o) => historicalVolatility(b.c, 20, 8760, o[0]),
    libs: {
      ixjb94: (x) => ix.volatility(x.c, 20),
    },
  },
  {
    name: 'Volume ratio(20)',
    registry: ['volume', {}],
    ours: (b, o) => volRatio(b.v, 20, o[0]),
    libs: {},
  },
  {
    name: 'Candle features',
    registry: ['candle', {}],
    ours: (b, o) =>
      candleFeatures(b.o, b.h, b.l, b.c, {
        bodyPct: o[0],
        upperWickPct: o[1],
        lowerWickPct: o[2],
        rangePct: o[3],
        isBullish: o[4],
        isBearish: o[5],
        bullishEngulfing: o[6],
        bearishEngulfing: o[7],
        hammer: o[8],
        shootingStar: o[9],
        doji: o[10],
      }),
    libs: {},
  },
]

/**
 * ns per bar of each runner over every coin. Runners take turns coin by coin, in an order that
 * rotates with the coin and the round, so every runner is timed on the same coin within the
 * same fraction of a millisecond: this machine drifts between a fast and a slow state every
 * second or so (a fixed loop over a cached column measured 1.2 and 1.9 ns per bar in
 * alternate half-seconds), and turns of whole runners let one runner's best fall in a fast
 * spell and another's in a slow one. A full GC starts each round; each (runner, coin) keeps
 * its best time: a burst of load from other processes rarely survives the minimum.
 */
function nsPerBar(runners: ((k: number) => void)[], coins: number, bars: number, reps: number, budgetMs: number): number[] {
  const best = runners.map(() => new Array<number>(coins).fill(Infinity))
  for (const run of runners) for (let k = 0; k < coins; k++) run(k) // let the JIT settle
  const t0 = performance.now()
  for (let r = 0; r < reps && (r < 2 || performance.now() - t0 < budgetMs); r++) {
    Bun.gc(true)
    for (let k = 0; k < coins; k++) {
      for (let m = 0; m < runners.length; m++) {
        const j = (m + r + k) % runners.length
        const start = performance.now()
        runners[j](k)
        best[j][k] = Math.min(best[j][k], performance.now() - start)
      }
    }
  }
  return best.map((b) => (b.reduce((a, x) => a + x, 0) * 1e6) / bars)
}

function fmt(ns: number | undefined): string {
  if (ns === undefined) return '—'
  return ns < 10 ? ns.toFixed(2) : ns < 100 ? ns.toFixed(1) : ns.toFixed(0)
}

/** Measures one case in this process and returns its table row. */
function measureCase(cs: Case, coins: Bars[], reps: number): string {
  const totalBars = coins.reduce((s, b) => s + b.n, 0)
  const maxN = Math.max(...coins.map((b) => b.n))
  const outs = Array.from({ length: 11 }, () => new Float64Array(maxN))
  const libInputs: LibInput[] = coins.map((b) => {
    const arr = (x: Float64Array) => Array.from(x)
    return {
      o: arr(b.o),
      h: arr(b.h),
      l: arr(b.l),
      c: arr(b.c),
      v: arr(b.v),
      candles: Array.from({ length: b.n }, (_, i) => ({ open: b.o[i], high: b.h[i], low: b.l[i], close: b.c[i], volume: b.v[i] })),
    }
  })
  let sink = 0
  const runners: ((k: number) => void)[] = [(k) => cs.ours(coins[k], outs)]
  if (cs.registry) {
    const [id, params] = cs.registry
    const def = INDICATORS[id]
    const out: Record<string, Float64Array> = {}
    for (const f of def.fields) out[f.name] = new Float64Array(maxN)
    runners.push((k) => {
      def.compute(coins[k], params, out)
      sink += out[def.fields[0].name][coins[k].n - 1] || 0
    })
  }
  const libNames = LIBS.filter((name) => cs.libs[name])
  for (const name of libNames) {
    const run = cs.libs[name]!
    runners.push((k) => {
      const r = run(libInputs[k])
      sink += Array.isArray(r) ? r.length : r ? 1 : 0
    })
  }
  const times = nsPerBar(runners, coins.length, totalBars, reps, 8000)
  const ours = times[0]
  const registry = cs.registry ? times[1] : undefined
  const lib: Partial<Record<Lib, number>> = {}
  libNames.forEach((name, j) => (lib[name] = times[j + (cs.registry ? 2 : 1)]))
  const fastest = LIBS.filter((name) => lib[name] !== undefined).sort((a, b) => lib[a]! - lib[b]!)[0]
  const speedup = fastest ? `${(lib[fastest]! / ours).toFixed(1)}×` : '—'
  if (sink === 42.4242) console.error('')
  return `| ${cs.name} | ${fmt(ours)} | ${fmt(registry)} | ${fastest ?? '—'} | ${speedup} | ${LIBS.map((name) => fmt(lib[name])).join(' | ')} |`
}

/**
 * Each case runs in a fresh child process (`--case i`): in one long process, small kernels
 * measured 2–3× slower once many other cases had run before them (ROC 2 → 7 ns per bar), an
 * artefact of sharing the process, not of the kernel.
 */
function main(): void {
  if (!existsSync(DATA_DIR)) {
    console.log(`bench/indicators: skipped, no candles at ${DATA_DIR}`)
    return
  }
  const files = readdirSync(DATA_DIR).filter((f) => f.endsWith('.csv.gz')).sort()
  const coinCount = Math.min(arg('coins', files.length), files.length)
  const reps = arg('reps', 15)
  const caseAt = process.argv.indexOf('--case')
  if (caseAt >= 0) {
    const coins = files.slice(0, coinCount).map((f) => loadCandles(join(DATA_DIR, f)))
    console.log(measureCase(CASES[Number(process.argv[caseAt + 1])], coins, reps))
    return
  }
  const onlyAt = process.argv.indexOf('--only')
  const only = onlyAt >= 0 ? process.argv[onlyAt + 1].toLowerCase().split(',') : ['']
  const rows: string[] = []
  CASES.forEach((cs, index) => {
    if (!only.some((part) => cs.name.toLowerCase().includes(part))) return
    const child = Bun.spawnSync(
      [process.execPath, import.meta.path, '--case', String(index), '--coins', String(coinCount), '--reps', String(reps)],
      { stdout: 'pipe', stderr: 'inherit' },
    )
    if (child.exitCode !== 0) throw new Error(`bench/indicators: case ${cs.name} failed`)
    rows.push(child.stdout.toString().trim())
    console.error(`done: ${cs.name}`)
  })
  const bars = 31_973 * coinCount
  console.log(`Indicators: ns per bar over ${coinCount} coins × 31973 1h bars (${bars} bars), best of up to ${reps} runs, one process per row; bun ${Bun.version}`)
  console.log('')
  console.log(`| indicator | ours | registry (all fields) | fastest library | ours vs fastest | ${LIBS.join(' | ')} |`)
  console.log(`|---|---:|---:|---|---:|${LIBS.map(() => '---:').join('|')}|`)
  for (const row of rows) console.log(row)
}

main()
