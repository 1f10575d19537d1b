/**
 * What a row offers, typed against the server's own unions, so one added there fails the
 * page's type check until the page offers it: the operators, the window statistics and
 * the candle's own fields.
 */
import type { BaseField, MarketField } from '../../src/strategies/catalog'
import type { Timeframe } from '../../src/market/timeframe'
import type { Key } from '../i18n'
import type { Leaf } from './tree'

export type Op = Leaf['op']

/** every operator of the condition language, with its words (a new operator fails the type check here) */
export const OP_KEYS: Record<Op, Key> = {
  '==': 'op.==',
  '!=': 'op.!=',
  '>': 'op.>',
  '>=': 'op.>=',
  '<': 'op.<',
  '<=': 'op.<=',
  crosses_above: 'op.crosses_above',
  crosses_below: 'op.crosses_below',
  in: 'op.in',
  not_in: 'op.not_in',
}
export const isListOp = (op: Op) => op === 'in' || op === 'not_in'

export type Stat = NonNullable<Leaf['stat']>
/** the window statistics a field can be read through (a new one fails the type check here) */
export const STAT_KEYS: Record<Stat, Key> = { mean: 'stat.mean', min: 'stat.min', max: 'stat.max' }
export const OPS = Object.keys(OP_KEYS) as Op[]

/** the candle's own fields, usable without any indicator */
export const BASE_FIELDS: Record<BaseField, 'number'> = { close: 'number', open: 'number', high: 'number', low: 'number', volume: 'number', hour: 'number', weekday: 'number', next_hour: 'number' }

/** the coin's derivatives data at the bar's close (docs/conditions.md), usable without any indicator */
export const MARKET_FIELDS: Record<MarketField, 'number'> = { funding_rate: 'number', funding_rate_mean: 'number', basis: 'number', open_interest: 'number' }

/** the timeframes a field may be read on (the run's or a higher one: the server refuses a lower one); a new one fails the type check here */
const TIMEFRAME_SET: Record<Timeframe, true> = { '1H': true, '2H': true, '4H': true, '6H': true, '12H': true, '1D': true, '1W': true }
export const FIELD_TIMEFRAMES = Object.keys(TIMEFRAME_SET) as Timeframe[]
