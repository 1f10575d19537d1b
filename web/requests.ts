/** Settings → API request bodies: which route a run takes and what it sends. */
import type { BacktestBody, CoinSimBody, CompareBody, OptimizeBody, SimulateBody, Strategy, ValidateBody } from './api'
import type { Meta } from './meta'
import { num, numberList, symbolList, type Settings } from './settings'

const feeFraction = (fee: string): number | null | undefined => {
  const v = num(fee)
  // the page's fee is a percent per side (as /share's); the API takes a fraction
  return v === undefined ? null : typeof v === 'number' ? v / 100 : v
}
const day = (v: string) => (v.trim() === '' ? null : v.trim())
const orNull = (v: number | undefined) => (v === undefined ? null : v)
/** the universe field of a top-N run: sent only when the page chose one (else the server's default rule) */
const asOfField = (s: Settings): { universe?: 'point_in_time' | 'current' } => (s.asOf ? { universe: s.asOf } : {})

export type SimulatePlan = { route: 'simulate'; body: SimulateBody } | { route: 'backtest'; body: BacktestBody }

/** the registry strategy as a /backtest tree (for a symbol list, which /simulate does not take) */
function registryTree(st: Strategy): Pick<BacktestBody, 'name' | 'direction' | 'indicators' | 'entry' | 'exit_conditions'> {
  return { name: st.name, direction: st.default_params.direction === 'long' ? 'long' : 'short', indicators: st.indicators, entry: st.entry, exit_conditions: st.exit_conditions }
}

function commonRun(s: Settings) {
  return {
    sl_pct: num(s.sl),
    tp_pct: num(s.tp),
    max_bars: num(s.bars),
    leverage: num(s.lev) ?? 1,
    start_date: day(s.from),
    end_date: day(s.to),
    timeframe: s.tf as SimulateBody['timeframe'],
    compounding: s.comp,
  }
}

/** /simulate for a registry strategy over the top N; /backtest for a symbol list or a built strategy */
export function simulatePlan(s: Settings, meta: Meta): SimulatePlan {
  const common = commonRun(s)
  const symbols = s.universe === 'symbols' ? symbolList(s.symbols) : null
  if (s.mode === 'registry' && !symbols) {
    return { route: 'simulate', body: { strategy: s.strategy, ...common, top_n: orNull(num(s.topN)), ...asOfField(s), fee_pct: feeFraction(s.fee) } }
  }
  const universe = symbols ? { symbols: symbols.length ? symbols : null, top_n: null } : { top_n: orNull(num(s.topN)), ...asOfField(s) }
  if (s.mode === 'builder' && s.builder) {
    const b = s.builder
    return { route: 'backtest', body: { name: b.name, direction: b.dir, indicators: b.indicators, entry: b.entry, ...common, ...universe } }
  }
  const st = meta.strategies.find(x => x.id === s.strategy)
  if (!st) return { route: 'simulate', body: { strategy: s.strategy, ...common, top_n: orNull(num(s.topN)), ...asOfField(s), fee_pct: feeFraction(s.fee) } }
  const d = st.default_params
  return {
    route: 'backtest',
    body: { ...registryTree(st), ...common, sl_pct: common.sl_pct ?? d.sl_pct, tp_pct: common.tp_pct ?? d.tp_pct, max_bars: common.max_bars ?? d.max_bars, ...universe },
  }
}

/** the strategy part of a research request: a registry id or the built tree */
function researchStrategy(s: Settings): Partial<ValidateBody> {
  if (s.mode === 'builder' && s.builder) return { name: s.builder.name, direction: s.builder.dir, indicators: s.builder.indicators, entry: s.builder.entry }
  return { strategy: s.strategy }
}

function researchRun(s: Settings) {
  const c = commonRun(s)
  return { ...c, top_n: orNull(num(s.topN)), ...asOfField(s), fee_pct: feeFraction(s.fee) }
}

export function validateBody(s: Settings): ValidateBody {
  return { ...researchStrategy(s), ...researchRun(s), oos_pct: num(s.oos) ?? 30, n_simulations: num(s.sims) ?? 1000 }
}

export function optimizeBody(s: Settings): OptimizeBody {
  const { sl_pct: _sl, tp_pct: _tp, ...run } = researchRun(s)
  return { ...researchStrategy(s), ...run, sl_values: numberList(s.slGrid), tp_values: numberList(s.tpGrid), objective: 'profit_factor' }
}

export function compareBody(s: Settings): CompareBody {
  return { sl_pct: num(s.sl) ?? 10, tp_pct: num(s.tp) ?? 8, max_bars: num(s.bars) ?? 48, top_n: orNull(num(s.cmpN)) }
}

export function coinBody(s: Settings, meta: Meta): CoinSimBody {
  const st = meta.strategies.find(x => x.id === s.strategy)
  const d = st?.default_params
  return {
    symbol: s.symbol.trim().toUpperCase(),
    strategy: s.strategy,
    sl_pct: num(s.sl) ?? d?.sl_pct,
    tp_pct: num(s.tp) ?? d?.tp_pct,
    max_bars: num(s.bars) ?? d?.max_bars,
    leverage: num(s.lev) ?? 1,
    fee_pct: feeFraction(s.fee),
    start_date: day(s.from),
    end_date: day(s.to),
    timeframe: s.tf as CoinSimBody['timeframe'],
  }
}

/** validation_errors of a /backtest ("entry.conditions[2].field: …") by condition row; the rest apart */
export function rowErrors(errors: readonly string[]): { rows: Map<number, string[]>; rest: string[] } {
  const rows = new Map<number, string[]>()
  const rest: string[] = []
  for (const e of errors) {
    const m = /^entry(?:\.conditions\[(\d+)\])?[.:\s]/.exec(e)
    const i = m ? Number(m[1] ?? 0) : -1
    if (i >= 0) rows.set(i, [...(rows.get(i) ?? []), e])
    else rest.push(e)
  }
  return { rows, rest }
}

/** The /share link of a registry run over the top N (its query names are the contract's); null when /share cannot carry the run. */
export function shareLink(s: Settings, r: { sl_pct: number; tp_pct: number; top_n_requested: number | null; leverage: number; direction: string }, origin: string): string | null {
  // /share carries no max bars, timeframe or compounding: such a run is shared by the page's own address
  if (s.mode !== 'registry' || s.universe === 'symbols' || r.top_n_requested === null || s.bars.trim() !== '' || s.tf !== '1H' || s.comp) return null
  const q = new URLSearchParams({ preset: s.strategy, dir: r.direction, sl: String(r.sl_pct), tp: String(r.tp_pct), topN: String(r.top_n_requested), lev: String(r.leverage), fee: s.fee.trim() || '0.05' })
  if (s.from) q.set('from', s.from)
  if (s.to) q.set('to', s.to)
  if (s.lang !== 'en') q.set('lang', s.lang)
  return `${origin}/share?${q}`
}
