/**
 * The bot's zip (docs/bots.md §4): the shipped candles of each coin, the signals the
 * service's own code finds on exactly those numbers, and every file. Pure; the service runs
 * it as a worker task (runs/compute/bot-tasks.ts), since a zip of 50 coins' candles takes
 * seconds to compress.
 */
import { strToU8, zipSync, type Zippable } from 'fflate'
import type { Bars } from '../market/types'
import { prepareStrategy } from '../strategies/compile'
import type { BotConfig } from './bot-config'
import { envExample, packageJson, readme, type BacktestFigures } from './bot-files'
import { barsOfColumns, replaySignals, type BotSignal, type CandleColumns } from './replay'

export interface PackInput {
  /** the folder inside the zip, also the zip's name: a sanitised id */
  root: string
  cfg: BotConfig
  /** the registry strategy's description; null for a custom tree */
  description: string | null
  figures: BacktestFigures
  /** latest candles shipped per coin */
  selftestCandles: number
  generatedAtMs: number
  serviceVersion: string
  ccxtVersion: string
  botMjs: string
}

/** The last `count` candles of `bars` as shipped columns. */
function lastCandles(bars: Bars, count: number): CandleColumns {
  const from = Math.max(0, bars.n - count)
  const col = (c: Float64Array) => Array.from(c.subarray(from, bars.n))
  return { t: col(bars.t), o: col(bars.o), h: col(bars.h), l: col(bars.l), c: col(bars.c), v: col(bars.v) }
}

/** `barsOf(coin)`: the coin's candles at the bot's timeframe. */
export function packBot(p: PackInput, barsOf: (coin: string) => Bars): Uint8Array {
  const { cfg } = p
  const compiled = prepareStrategy(cfg.strategy)
  const candles: Zippable = {}
  const signals: Record<string, BotSignal[]> = {}
  let signalCount = 0
  for (const coin of cfg.coins) {
    const bars = barsOf(coin)
    const cols = lastCandles(bars, p.selftestCandles)
    // the bulk of the zip: a fast level, most of the saving anyway
    candles[`${coin}.json`] = [strToU8(JSON.stringify(cols)), { level: 1 }]
    // the bot replays exactly these numbers: the expected signals come from them too
    signals[coin] = replaySignals(barsOfColumns(cols, bars.stepMs), cfg, compiled)
    signalCount += signals[coin].length
  }
  const generatedAt = new Date(p.generatedAtMs).toISOString()
  const files: Zippable = {
    [p.root]: {
      'README.md': strToU8(readme(cfg, p.description, p.figures, signalCount, generatedAt, p.serviceVersion)),
      'package.json': strToU8(packageJson(cfg, p.ccxtVersion)),
      'config.json': strToU8(JSON.stringify(cfg, null, 2) + '\n'),
      '.env.example': strToU8(envExample(cfg)),
      'bot.mjs': strToU8(p.botMjs),
      selftest: { candles, 'signals.json': strToU8(JSON.stringify(signals, null, 1) + '\n') },
    },
  }
  return zipSync(files, { level: 6, mtime: new Date(p.generatedAtMs) })
}
