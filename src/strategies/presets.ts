/**
 * Builder presets: ready-made condition trees a user loads into the strategy builder
 * and edits. Each one shows a feature of the tree language (field against field, shift,
 * crosses, OR / NOT, time filters) on a well-known idea. No status: presets are
 * starting points, not recommendations.
 */
import type { Direction } from '../engine/types'
import type { ConditionNode, IndicatorParams } from './conditions'
import { conditionsCount } from './conditions'
import { all, any, cmp, is, not, ref } from './tree'

export interface Preset {
  id: string
  name: string
  direction: Direction
  indicators: IndicatorParams
  entry: ConditionNode
  sl_pct: number
  tp_pct: number
  max_bars: number
}

export interface PresetListItem {
  id: string
  name: string
  direction: Direction
  /** ids of the indicators the preset lists */
  indicators: string[]
  /** leaves of the entry tree */
  conditions_count: number
  sl_pct: number
  tp_pct: number
}

const PRESET_LIST: readonly Preset[] = [
  {
    id: 'bb-squeeze-breakdown',
    name: 'Bollinger squeeze breakdown',
    direction: 'short',
    indicators: { bb: {}, ema: {}, volume: {}, candle: {} },
    entry: all(is('recent_squeeze'), cmp('close', '<', ref('bb_lower')), cmp('vol_ratio', '>', 1.5), is('is_bearish'), is('downtrend')),
    sl_pct: 10,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    id: 'rsi-oversold-bounce',
    name: 'RSI oversold bounce',
    direction: 'long',
    indicators: { rsi: { period: 14 }, candle: {} },
    entry: all(cmp('rsi', '<', 30, 1), cmp('rsi', '>', ref('rsi', 1)), is('is_bullish')),
    sl_pct: 4,
    tp_pct: 6,
    max_bars: 24,
  },
  {
    id: 'ema-trend-pullback',
    name: 'EMA trend pullback',
    direction: 'long',
    indicators: { ema: { fast: 20, slow: 50 }, candle: {} },
    entry: all(is('uptrend'), cmp('low', '<=', ref('ema_fast')), cmp('close', '>', ref('ema_fast')), is('is_bullish')),
    sl_pct: 4,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    id: 'volume-spike-reversal',
    name: 'Volume spike reversal',
    direction: 'short',
    indicators: { volume: { period: 20 }, candle: {}, rsi: { period: 14 } },
    entry: all(cmp('vol_ratio', '>', 3), any(is('shooting_star'), is('bearish_engulfing')), cmp('rsi', '>', 65)),
    sl_pct: 5,
    tp_pct: 7,
    max_bars: 24,
  },
  {
    id: 'macd-zero-cross',
    name: 'MACD zero-line cross',
    direction: 'long',
    indicators: { macd: {}, ema: {} },
    entry: all(cmp('macd', 'crosses_above', 0), cmp('macd_hist', '>', 0), is('uptrend')),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    id: 'donchian-turtle',
    name: 'Donchian turtle breakout',
    direction: 'long',
    indicators: { donchian: { period: 20 }, volume: {} },
    entry: all(cmp('close', '>', ref('dc_upper_prev')), cmp('vol_ratio', '>', 1.2)),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    id: 'weekday-session-momentum',
    name: 'Weekday US-session momentum',
    direction: 'long',
    indicators: { ema: {}, volume: {}, candle: {} },
    entry: all(
      cmp('hour', '>=', 13),
      cmp('hour', '<=', 16),
      not(any(cmp('weekday', '==', 5), cmp('weekday', '==', 6))),
      is('uptrend'),
      is('is_bullish'),
      cmp('vol_ratio', '>', 1.5),
    ),
    sl_pct: 3,
    tp_pct: 5,
    max_bars: 12,
  },
  {
    id: 'overbought-fade',
    name: 'Overbought stochastic fade',
    direction: 'short',
    indicators: { stoch: {}, rsi: {}, bb: {} },
    entry: all(cmp('stoch_k', 'crosses_below', ref('stoch_d')), cmp('stoch_k', '>', 80, 1), cmp('rsi', '>', 65), cmp('high', '>=', ref('bb_upper'))),
    sl_pct: 4,
    tp_pct: 6,
    max_bars: 24,
  },
  {
    id: 'supertrend-flip',
    name: 'Supertrend flip with ADX',
    direction: 'long',
    indicators: { supertrend: {}, adx: {} },
    entry: all(is('st_bullish'), is('st_bullish', false, 1), cmp('adx', '>', 20)),
    sl_pct: 6,
    tp_pct: 12,
    max_bars: 96,
  },
  {
    id: 'keltner-breakout',
    name: 'Keltner channel breakout',
    direction: 'long',
    indicators: { keltner: {}, atr: {} },
    entry: all(cmp('close', 'crosses_above', ref('kc_upper')), cmp('atr_ratio', '>', 1)),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
]

export const PRESETS: Readonly<Record<string, Preset>> = Object.freeze(Object.fromEntries(PRESET_LIST.map(p => [p.id, p])))

export function getPreset(id: string): Preset | undefined {
  return Object.hasOwn(PRESETS, id) ? structuredClone(PRESETS[id]) : undefined
}

export function listPresets(): PresetListItem[] {
  return PRESET_LIST.map(p => ({
    id: p.id,
    name: p.name,
    direction: p.direction,
    indicators: Object.keys(p.indicators),
    conditions_count: conditionsCount(p.entry),
    sl_pct: p.sl_pct,
    tp_pct: p.tp_pct,
  }))
}
