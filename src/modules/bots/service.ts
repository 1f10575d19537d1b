/**
 * The bot simulations' service (docs/bots.md): resolves the symbol and the window, checks
 * what the schema cannot, runs the bot on a worker through the run pipeline
 * (RunService.dcaBot / gridBot: off the request loop, shed with 503 when the queue is full) and
 * shapes the response.
 */
import type { CandleStore } from '../../market/candle-store'
import { InvalidRequest, UnknownSymbols, type Problem } from '../../runs/errors'
import type { RunService } from '../../runs/service'
import { DAY_MS, HOUR_MS, isoDay, isoInstant, parseDay } from '../../time'
import { dailyEquity } from '../../engine/bots/bot-equity'
import type { DcaDeal } from '../../engine/bots/dca'
import type { BotInput } from '../../engine/bots/types'
import { DEFAULT_FEE_FRAC, DEFAULT_MMR_FRAC } from '../../engine/types'
import { lowerBound, upperBound } from '../../sorted-search'
import { Value } from '@sinclair/typebox/value'
import type { TObject, TSchema } from '@sinclair/typebox'
import { DcaParams, GridParams, type DcaSimRequest, type DcaSimResponse, type GridSimRequest, type GridSimResponse } from './model'

export const GRID_ACCURACY_NOTE =
  'Approximation from 1H candles: inside each hour the price is assumed to go open → nearer extreme → other extreme → close. ' +
  'Moves the candle hides (the price crossing a grid line and coming back several times within the hour, or reaching the lines in another order) ' +
  'are not seen, so round trips and fills can be undercounted in choppy hours; a live grid also fills at limit prices with partial fills and exchange-side rounding this model ignores.'

/** An ISO 8601 date or date-time as epoch ms (UTC unless an offset is given); `endOfDay` for a bare date used as an inclusive end. */
export function parseInstant(s: string, endOfDay: boolean): number | null {
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(s)
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(s)
  const ms = Date.parse(bare ? `${s}T00:00:00Z` : zoned ? s : `${s}Z`)
  if (!Number.isFinite(ms)) return null
  if (bare && parseDay(s) === null) return null
  return bare && endOfDay ? ms + DAY_MS - 1 : ms
}

/** What a value of `schema` must be, in words (for a 422's msg). */
function ruleOf(schema: TSchema): string {
  const s = schema as any
  if (Array.isArray(s.anyOf)) {
    const literals = s.anyOf.filter((x: any) => x.const !== undefined).map((x: any) => x.const)
    if (literals.length === s.anyOf.length) return `one of: ${literals.join(', ')}`
    return s.anyOf.map((x: TSchema) => ruleOf(x)).join(' or ')
  }
  if (s.type === 'null') return 'null'
  const kind = s.type === 'integer' ? 'an integer' : 'a number'
  const lo = s.minimum !== undefined ? `from ${s.minimum}` : s.exclusiveMinimum !== undefined ? `above ${s.exclusiveMinimum}` : ''
  const hi = s.maximum !== undefined ? `to ${s.maximum}` : ''
  return [kind, lo, hi].filter(Boolean).join(' ')
}

/**
 * A bot's `params` with the schema's defaults filled in, or the 422 naming every key that
 * is out of range, of the wrong type or unknown.
 */
export function resolveParams<S extends TObject>(schema: S, raw: Record<string, unknown> | undefined): S['static'] {
  const value = Value.Default(schema, structuredClone(raw ?? {}))
  const problems: Problem[] = []
  const seen = new Set<string>()
  for (const e of Value.Errors(schema, value)) {
    const key = e.path.split('/')[1] ?? ''
    if (seen.has(key)) continue
    seen.add(key)
    const property = (schema.properties as Record<string, TSchema>)[key]
    if (property === undefined) {
      problems.push({ loc: ['body', 'params', key], msg: `unknown key '${key}'; the keys are: ${Object.keys(schema.properties).join(', ')}`, input: e.value })
    } else {
      const missing = e.value === undefined
      problems.push({ loc: ['body', 'params', key], msg: missing ? `required: ${ruleOf(property)}` : `must be ${ruleOf(property)}`, input: e.value ?? null })
    }
  }
  if (problems.length) throw new InvalidRequest(problems)
  return value as S['static']
}


/** The coin's bars inside [start, end] (bar open times), or the 404/422 that says why not. */
function windowOf(store: CandleStore, req: { symbol: string; start: string | null; end: string | null }): BotInput {
  const bars = store.bars(req.symbol)
  if (!bars) throw new UnknownSymbols([req.symbol])
  const problems: Problem[] = []
  const startMs = req.start === null ? null : parseInstant(req.start, false)
  const endMs = req.end === null ? null : parseInstant(req.end, true)
  if (req.start !== null && startMs === null) problems.push({ loc: ['body', 'start'], msg: 'not a valid ISO 8601 date or date-time', input: req.start })
  if (req.end !== null && endMs === null) problems.push({ loc: ['body', 'end'], msg: 'not a valid ISO 8601 date or date-time', input: req.end })
  if (startMs !== null && endMs !== null && endMs < startMs) problems.push({ loc: ['body', 'end'], msg: 'end is before start', input: req.end })
  if (problems.length) throw new InvalidRequest(problems)
  const fromIdx = startMs === null ? 0 : lowerBound(bars.t, startMs, bars.n)
  const lastIdx = (endMs === null ? bars.n : upperBound(bars.t, endMs, bars.n)) - 1
  const candles = Math.max(0, lastIdx - fromIdx + 1)
  if (candles < 2) {
    const window = `${req.start ?? 'first candle'} … ${req.end ?? 'last candle'}`
    throw new InvalidRequest([{ loc: ['body', 'start'], msg: `the window ${window} holds ${candles} 1H candle${candles === 1 ? '' : 's'} of ${req.symbol}; at least 2 are needed`, input: { start: req.start, end: req.end } }])
  }
  return { bars, funding: store.funding(req.symbol) ?? null, fromIdx, lastIdx }
}

function feeFracOf(takerFeePct: number | null): number {
  return takerFeePct === null ? DEFAULT_FEE_FRAC.futures : takerFeePct / 100
}

function windowFields(input: BotInput, symbol: string, feeFrac: number, r: { equityUsdt: Float64Array; maxDrawdownPct: number; maxDrawdownUsdt: number; fundingEvents: number; fundingEventsReal: number; warnings: string[] }) {
  const { bars, fromIdx, lastIdx } = input
  const closeMs = new Float64Array(lastIdx - fromIdx + 1)
  for (let k = fromIdx; k <= lastIdx; k++) closeMs[k - fromIdx] = bars.t[k] + bars.stepMs
  return {
    symbol,
    taker_fee_pct: feeFrac * 100,
    maintenance_margin_pct: DEFAULT_MMR_FRAC * 100,
    candles: lastIdx - fromIdx + 1,
    data_range: `${isoInstant(bars.t[fromIdx])} to ${isoInstant(bars.t[lastIdx] + bars.stepMs)}`,
    funding_events: r.fundingEvents,
    funding_coverage: r.fundingEvents > 0 ? r.fundingEventsReal / r.fundingEvents : null,
    max_drawdown_pct: r.maxDrawdownPct,
    max_drawdown_usdt: r.maxDrawdownUsdt,
    equity_curve: dailyEquity(closeMs, r.equityUsdt).map(p => ({ t: isoDay(p.dayMs), equity_usdt: p.equityUsdt })),
    warnings: r.warnings,
  }
}

type DcaResponse = typeof DcaSimResponse.static
type GridResponse = typeof GridSimResponse.static

export async function simulateDcaRequest(store: CandleStore, runs: RunService, req: DcaSimRequest): Promise<DcaResponse> {
  const p = resolveParams(DcaParams, req.params)
  const input = windowOf(store, req)
  const feeFrac = feeFracOf(req.taker_fee_pct)
  const params = {
    direction: p.direction,
    baseOrderUsdt: p.base_order_usdt,
    safetyOrderUsdt: p.safety_order_usdt,
    maxSafetyOrders: p.max_safety_orders,
    priceDeviationPct: p.price_deviation_pct,
    safetyStepScale: p.safety_step_scale,
    safetyVolumeScale: p.safety_volume_scale,
    takeProfitPct: p.take_profit_pct,
    stopLossPct: p.stop_loss_pct,
    leverage: p.leverage,
    cooldownBars: p.cooldown_bars,
    feeFrac,
    mmrFrac: DEFAULT_MMR_FRAC,
  }
  const r = await runs.dcaBot({ symbol: req.symbol, fromIdx: input.fromIdx, lastIdx: input.lastIdx, params })
  const closed = r.deals.filter(d => d.exitReason !== 'end')
  const open = r.deals.filter(d => d.exitReason === 'end')
  const sum = (ds: DcaDeal[], f: (d: DcaDeal) => number) => ds.reduce((s, d) => s + f(d), 0)
  const netProfit = sum(closed, d => d.netPnlUsdt)
  const unrealized = sum(open, d => d.netPnlUsdt)
  const warnings = [...r.warnings]
  if (open.length) warnings.push('a deal was still open at the end of the window: it is marked at the last close (exit_reason end), not closed')
  const total = netProfit + unrealized
  return {
    ...windowFields(input, req.symbol, feeFrac, { ...r, warnings }),
    params: { ...p },
    ladder: r.ladder.map(x => ({ k: x.k, deviation_pct: x.deviationPct, margin_usdt: x.marginUsdt, reachable: x.reachable })),
    deals: r.deals.map(d => ({
      open_time: isoInstant(d.openTimeMs),
      close_time: isoInstant(d.closeTimeMs),
      exit_reason: d.exitReason,
      safety_orders_filled: d.safetyOrdersFilled,
      base_price: d.basePrice,
      avg_entry_price: d.avgEntry,
      exit_price: d.exitPrice,
      quantity: d.quantity,
      margin_usdt: d.marginUsdt,
      notional_usdt: d.notionalUsdt,
      fees_usdt: d.feesUsdt,
      funding_usdt: d.fundingUsdt,
      net_pnl_usdt: d.netPnlUsdt,
      net_pnl_pct: d.netPnlPct,
    })),
    deals_closed: closed.length,
    take_profit_count: closed.filter(d => d.exitReason === 'take_profit').length,
    stop_loss_count: closed.filter(d => d.exitReason === 'stop_loss').length,
    liquidation_count: closed.filter(d => d.exitReason === 'liquidation').length,
    open_deal_at_end: open.length > 0,
    net_profit_usdt: netProfit,
    unrealized_pnl_usdt: unrealized,
    total_pnl_usdt: total,
    max_capital_required_usdt: r.maxCapitalRequiredUsdt,
    roi_pct: (total / r.maxCapitalRequiredUsdt) * 100,
    max_safety_orders_used: r.deals.reduce((m, d) => Math.max(m, d.safetyOrdersFilled), 0),
    max_floating_loss_usdt: r.maxFloatingLossUsdt,
    avg_deal_hours: r.deals.length ? sum(r.deals, d => d.closeTimeMs - d.openTimeMs) / r.deals.length / HOUR_MS : null,
    fees_usdt: sum(r.deals, d => d.feesUsdt),
    funding_usdt: sum(r.deals, d => d.fundingUsdt),
  }
}

export async function simulateGridRequest(store: CandleStore, runs: RunService, req: GridSimRequest): Promise<GridResponse> {
  const p = resolveParams(GridParams, req.params)
  if (!(p.upper_price > p.lower_price)) throw new InvalidRequest([{ loc: ['body', 'params', 'upper_price'], msg: 'upper_price must be above lower_price', input: p.upper_price }])
  const input = windowOf(store, req)
  const feeFrac = feeFracOf(req.taker_fee_pct)
  const params = {
    lowerPrice: p.lower_price,
    upperPrice: p.upper_price,
    gridCount: p.grid_count,
    spacing: p.spacing,
    investmentUsdt: p.investment_usdt,
    leverage: p.leverage,
    direction: p.direction,
    stopLossPrice: p.stop_loss_price,
    takeProfitPrice: p.take_profit_price,
    feeFrac,
    mmrFrac: DEFAULT_MMR_FRAC,
  }
  const r = await runs.gridBot({ symbol: req.symbol, fromIdx: input.fromIdx, lastIdx: input.lastIdx, params })
  const totalReturnPct = (r.totalPnlUsdt / p.investment_usdt) * 100
  const days = (r.exitTimeMs - input.bars.t[input.fromIdx]) / DAY_MS
  return {
    ...windowFields(input, req.symbol, feeFrac, r),
    params: { ...p },
    accuracy: 'approx',
    accuracy_note: GRID_ACCURACY_NOTE,
    levels: [...r.levels],
    qty_per_order: r.qtyPerOrder,
    start_price: r.startPrice,
    grid_profit_usdt: r.gridProfitUsdt,
    floating_pnl_usdt: r.floatingPnlUsdt,
    closeout_pnl_usdt: r.closeoutPnlUsdt,
    total_pnl_usdt: r.totalPnlUsdt,
    total_return_pct: totalReturnPct,
    apr_pct: days > 0 ? (totalReturnPct * 365) / days : 0,
    round_trips: r.roundTrips,
    fills: r.buys + r.sells,
    buys: r.buys,
    sells: r.sells,
    fees_usdt: r.feesUsdt,
    funding_usdt: r.fundingUsdt,
    exit_reason: r.exitReason,
    exit_time: isoInstant(r.exitTimeMs),
    exit_price: r.exitPrice,
    final_position_qty: r.finalPositionQty,
  }
}
