/**
 * Builder presets: ready-made condition trees a user loads into the strategy builder
 * and edits. Three kinds, in this order: every registry strategy under its own id (so a
 * named strategy is exactly what a user could have built), our former rules whose ids
 * the replaced service's rules took (under names of their own, e.g. the TTM squeeze;
 * docs/strategies.md), and a few that each show a feature of the tree language. No
 * status: presets are starting points, not recommendations.
 */
import type { Direction } from '../engine/types'
import type { ConditionNode, IndicatorParams } from './conditions'
import { conditionsCount } from './conditions'
import { listStrategies } from './registry'
import { all, any, cmp, is, not, ref } from './tree'

export interface Preset {
  id: string
  name: string
  direction: Direction
  indicators: IndicatorParams
  entry: ConditionNode
  /** exit signal tree; null when the preset exits by SL / TP / timeout only */
  exit_conditions: ConditionNode | null
  sl_pct: number
  tp_pct: number
  max_bars: number
}

/** One of our former named rules, in both directions. */
interface FormerRule {
  slug: string
  name: string
  /** the registry id it was published under until the replaced service's rule took it */
  formerSlug: string
  indicators: IndicatorParams
  entry: (d: Direction) => ConditionNode
  exit?: (d: Direction) => ConditionNode
  sl_pct: number
  tp_pct: number
  max_bars: number
}

const pick = <T>(d: Direction, a: T, b: T): T => (d === 'long' ? a : b)
const BB = { period: 20, std: 2, squeeze_lookback: 10, squeeze_threshold: 0.8 }
const EMA = { fast: 20, slow: 50 }
const VOLUME = { period: 20 }

/** Our rules of 2026-11-22 (docs/strategies.md, "Former rules"), unchanged but for their ids. */
export const FORMER_RULES: readonly FormerRule[] = [
  {
    slug: 'bb-band-breakout',
    name: 'Bollinger band breakout after a squeeze',
    formerSlug: 'bb-squeeze',
    indicators: { bb: BB, volume: VOLUME, candle: {} },
    entry: d =>
      all(
        is('recent_squeeze'),
        cmp('close', pick(d, '>', '<'), ref(pick(d, 'bb_upper', 'bb_lower'))),
        is('bb_expanding'),
        cmp('vol_ratio', '>', 1.5),
        is(pick(d, 'is_bullish', 'is_bearish')),
      ),
    sl_pct: 10,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'atr-body-breakout',
    name: 'ATR body breakout',
    formerSlug: 'atr-breakout',
    indicators: { atr: { period: 14 }, candle: {}, volume: VOLUME },
    entry: d =>
      all(is(pick(d, 'is_bullish', 'is_bearish')), cmp('body_pct', '>', ref('natr')), cmp('atr_ratio', '>', 1.2), cmp('vol_ratio', '>', 1.5)),
    sl_pct: 6,
    tp_pct: 9,
    max_bars: 48,
  },
  {
    slug: 'adx-pullback',
    name: 'ADX trend pullback',
    formerSlug: 'adx-trend',
    indicators: { adx: { period: 14 }, ema: EMA },
    entry: d =>
      all(
        cmp('adx', '>', 25),
        cmp(pick(d, 'plus_di', 'minus_di'), '>', ref(pick(d, 'minus_di', 'plus_di'))),
        is(pick(d, 'uptrend', 'downtrend')),
        cmp('close', pick(d, 'crosses_above', 'crosses_below'), ref('ema_fast')),
      ),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    slug: 'macd-signal-cross-trend',
    name: 'MACD signal cross in a trend',
    formerSlug: 'macd-cross',
    indicators: { macd: { fast: 12, slow: 26, signal: 9 }, ema: EMA },
    entry: d =>
      all(cmp('macd', pick(d, 'crosses_above', 'crosses_below'), ref('macd_signal')), cmp('macd', pick(d, '<', '>'), 0), is(pick(d, 'uptrend', 'downtrend'))),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'bb-rsi-snapback',
    name: 'Bollinger and RSI snap-back',
    formerSlug: 'mean-reversion',
    indicators: { bb: BB, rsi: { period: 14 } },
    entry: d => all(cmp('close', pick(d, '<', '>'), ref(pick(d, 'bb_lower', 'bb_upper'))), cmp('rsi', pick(d, '<', '>'), pick(d, 25, 75))),
    exit: d => cmp('close', pick(d, '>', '<'), ref('bb_mid')),
    sl_pct: 6,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'supertrend-adx',
    name: 'Supertrend flip with ADX, exit on the flip back',
    formerSlug: 'supertrend',
    indicators: { supertrend: { period: 10, multiplier: 3 }, adx: { period: 14 } },
    entry: d => all(is('st_bullish', d === 'long'), is('st_bullish', d !== 'long', 1), cmp('adx', '>', 20)),
    exit: d => is('st_bullish', d !== 'long'),
    sl_pct: 6,
    tp_pct: 12,
    max_bars: 96,
  },
  {
    slug: 'donchian-channel',
    name: 'Donchian breakout, exit at the channel middle',
    formerSlug: 'donchian-breakout',
    indicators: { donchian: { period: 20 } },
    entry: d => cmp('close', pick(d, '>', '<'), ref(pick(d, 'dc_upper_prev', 'dc_lower_prev'))),
    exit: d => cmp('close', pick(d, 'crosses_below', 'crosses_above'), ref('dc_mid')),
    sl_pct: 5,
    tp_pct: 10,
    max_bars: 72,
  },
  {
    slug: 'ttm-squeeze',
    name: 'TTM squeeze breakout',
    formerSlug: 'keltner-squeeze',
    indicators: { bb: BB, keltner: { period: 20, atr_period: 20, mult: 1.5 }, candle: {} },
    entry: d =>
      all(
        cmp('bb_upper', '<', ref('kc_upper', 1), 1),
        cmp('bb_lower', '>', ref('kc_lower', 1), 1),
        cmp('close', pick(d, '>', '<'), ref(pick(d, 'kc_upper', 'kc_lower'))),
        is(pick(d, 'is_bullish', 'is_bearish')),
      ),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'ema-20-50-cross',
    name: 'EMA 20/50 cross, exit on the opposite cross',
    formerSlug: 'ma-cross',
    indicators: { ema: EMA },
    entry: d => cmp('ema_fast', pick(d, 'crosses_above', 'crosses_below'), ref('ema_slow')),
    exit: d => cmp('ema_fast', pick(d, 'crosses_below', 'crosses_above'), ref('ema_slow')),
    sl_pct: 6,
    tp_pct: 12,
    max_bars: 120,
  },
  {
    slug: 'ichimoku-tk-cross',
    name: 'Ichimoku TK cross beyond the cloud',
    formerSlug: 'ichimoku',
    indicators: { ichimoku: { tenkan: 9, kijun: 26, senkou_b: 52, displacement: 26 } },
    entry: d =>
      all(
        cmp('tenkan', pick(d, 'crosses_above', 'crosses_below'), ref('kijun')),
        cmp('close', pick(d, '>', '<'), ref('senkou_a')),
        cmp('close', pick(d, '>', '<'), ref('senkou_b')),
      ),
    sl_pct: 6,
    tp_pct: 10,
    max_bars: 96,
  },
  {
    slug: 'heikin-ashi-turn',
    name: 'Heikin-Ashi turn with the trend',
    formerSlug: 'heikin-ashi',
    indicators: { heikin_ashi: {}, ema: EMA },
    entry: d =>
      all(is('ha_bullish', d === 'long'), is('ha_bullish', d !== 'long', 1), is('ha_bullish', d !== 'long', 2), is(pick(d, 'uptrend', 'downtrend'))),
    sl_pct: 5,
    tp_pct: 8,
    max_bars: 48,
  },
  {
    slug: 'stoch-rsi-trend',
    name: 'Stoch RSI cross with the trend',
    formerSlug: 'stoch-rsi',
    indicators: { stochrsi: {}, ema: EMA },
    entry: d =>
      all(
        cmp('stochrsi_k', pick(d, 'crosses_above', 'crosses_below'), ref('stochrsi_d')),
        cmp('stochrsi_k', pick(d, '<', '>'), pick(d, 20, 80)),
        is(pick(d, 'uptrend', 'downtrend')),
      ),
    sl_pct: 5,
    tp_pct: 6,
    max_bars: 24,
  },
]

const DIRS: readonly Direction[] = ['long', 'short']

function formerPresets(): Preset[] {
  return FORMER_RULES.flatMap(r =>
    DIRS.map(d => ({
      id: `${r.slug}-${d}`,
      name: `${r.name} ${d.toUpperCase()}`,
      direction: d,
      indicators: structuredClone(r.indicators),
      entry: r.entry(d),
      exit_conditions: r.exit ? r.exit(d) : null,
      sl_pct: r.sl_pct,
      tp_pct: r.tp_pct,
      max_bars: r.max_bars,
    })),
  )
}

function registryPresets(): Preset[] {
  return listStrategies().map(s => ({
    id: s.id,
    name: s.name,
    direction: s.direction,
    indicators: structuredClone(s.indicators),
    entry: structuredClone(s.entry),
    exit_conditions: s.exit_conditions ? structuredClone(s.exit_conditions) : null,
    sl_pct: s.sl_pct,
    tp_pct: s.tp_pct,
    max_bars: s.max_bars,
  }))
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

/** Presets that each show a feature of the tree language on a well-known idea. */
const LANGUAGE_PRESETS: readonly Omit<Preset, 'exit_conditions'>[] = [
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

const PRESET_LIST: readonly Preset[] = [
  ...registryPresets(),
  ...formerPresets(),
  ...LANGUAGE_PRESETS.map(p => ({ ...p, exit_conditions: null })),
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
