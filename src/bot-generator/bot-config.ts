/**
 * What a generated bot's config.json holds (docs/bots.md §5): the strategy as a condition
 * tree, its trade settings and how the bot runs. The service writes it; the bot (the
 * bundle of runtime/bot.ts) reads it. Plain JSON, no functions.
 */
import type { Direction } from '../engine/types'
import type { Timeframe } from '../market/timeframe'
import type { StrategySpec } from '../strategies/conditions'

export interface BotConfig {
  /** shown in logs and the README */
  name: string
  /** the registry id the strategy came from; null for a custom tree */
  strategy_id: string | null
  direction: Direction
  strategy: StrategySpec
  timeframe: Timeframe
  sl_pct: number
  tp_pct: number
  max_bars: number
  leverage: number
  /** margin per position, USDT; the order's notional is this × leverage */
  position_size_usd: number
  coins: string[]
  /** UTC hours in which no position is entered */
  avoid_hours: number[]
  /** a ccxt exchange id */
  exchange: string
  /** live orders only when this is true AND the environment sets BOT_LIVE=yes */
  live: boolean
  /** positions the bot holds, so that a restart does not forget them */
  state_file: string
  /** closed candles fetched per coin and cycle (indicator warm-up) */
  history_candles: number
}
