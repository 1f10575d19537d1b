/** Settings → API request bodies: which route a run takes and what it sends. */
import type { BacktestBody, CoinSimBody, CompareBody, OptimizeBody, SearchFields, SimulateBody, Strategy, SweepBody, SweepObjective, ValidateBody, WalkForwardBody } from './api'
import type { Meta } from './meta'
import { DEFAULTS, num, numberList, spaceRows, symbolList, type Settings, type SpaceRow } from './settings'

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
    ...executionBody(s),
  }
}

/** the execution settings as the API takes them (sent as typed: the server's 422 names a bad one) */
export function executionBody(s: Settings): Pick<SimulateBody, 'slippage' | 'impact_k' | 'tp_order' | 'maker_fee_pct' | 'liquidation_fee_pct' | 'margin' | 'intrabar'> {
  return {
    slippage: s.slip as SimulateBody['slippage'],
    impact_k: num(s.impactK),
    tp_order: s.tpOrder as SimulateBody['tp_order'],
    maker_fee_pct: num(s.makerFee),
    liquidation_fee_pct: num(s.liqFee),
    margin: s.margin as SimulateBody['margin'],
    intrabar: s.intrabar as SimulateBody['intrabar'],
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
  // every strategy runs with the Execution group's settings, as /simulate does
  return { sl_pct: num(s.sl) ?? 10, tp_pct: num(s.tp) ?? 8, max_bars: num(s.bars) ?? 48, top_n: orNull(num(s.cmpN)), ...executionBody(s) }
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
    ...executionBody(s),
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
  // nor the execution group's settings other than their defaults
  const execution = (['slip', 'impactK', 'tpOrder', 'makerFee', 'liqFee', 'margin', 'intrabar'] as const).some(k => s[k] !== DEFAULTS[k])
  if (s.mode !== 'registry' || s.universe === 'symbols' || r.top_n_requested === null || s.bars.trim() !== '' || s.tf !== '1H' || s.comp || execution) return null
  const q = new URLSearchParams({ preset: s.strategy, dir: r.direction, sl: String(r.sl_pct), tp: String(r.tp_pct), topN: String(r.top_n_requested), lev: String(r.leverage), fee: s.fee.trim() || '0.05' })
  if (s.from) q.set('from', s.from)
  if (s.to) q.set('to', s.to)
  if (s.lang !== 'en') q.set('lang', s.lang)
  return `${origin}/share?${q}`
}

/**
 * One dimension of a sweep's space from a row as typed: "3,5,8" is a list (a word such as
 * 4H stays a word: timeframes), "2:10:2" a range min:max:step. Anything else is sent as
 * typed, so the server's 422 names it.
 */
export function spaceDimension(row: SpaceRow): SearchFields['space'][number] {
  const path = row.path.trim()
  const v = row.values.trim()
  const range = /^(-?[\d.]+)\s*:\s*(-?[\d.]+)\s*:\s*(-?[\d.]+)$/.exec(v)
  if (range) return { path, min: Number(range[1]), max: Number(range[2]), step: Number(range[3]) }
  const values = v
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(x => (Number.isFinite(Number(x)) ? Number(x) : x))
  return { path, values }
}

/** the base run of a sweep or walk-forward: the strategy (registry id or built tree) with the run fields */
function researchBase(s: Settings): Partial<SweepBody> {
  const symbols = s.universe === 'symbols' ? symbolList(s.symbols) : null
  const universe = symbols ? { symbols: symbols.length ? symbols : null, top_n: null } : { top_n: orNull(num(s.topN)) }
  const strategy = s.mode === 'builder' && s.builder ? { name: s.builder.name, direction: s.builder.dir, indicators: s.builder.indicators, entry: s.builder.entry } : { strategy: s.strategy }
  return { ...strategy, ...commonRun(s), ...universe }
}

function searchFields(s: Settings): SearchFields {
  const random = s.method === 'random'
  return {
    space: spaceRows(s.space).map(spaceDimension),
    method: random ? 'random' : 'grid',
    ...(random ? { budget: num(s.budget), seed: num(s.seed) ?? 0 } : {}),
    objective: s.objective as SweepObjective,
    min_trades: num(s.minTrades) ?? 30,
  }
}

export function sweepBody(s: Settings): SweepBody {
  return { ...researchBase(s), ...searchFields(s) }
}

export function walkForwardBody(s: Settings): WalkForwardBody {
  return {
    ...researchBase(s),
    ...searchFields(s),
    mode: s.wfMode === 'anchored' ? 'anchored' : 'rolling',
    in_sample_days: num(s.isDays) as number,
    out_of_sample_days: num(s.oosDays) as number,
    folds: num(s.folds) as number,
    purge_days: num(s.purge) ?? 0,
  }
}

/**
 * A /backtest body for one fold's chosen parameters over a window: the base run with each
 * parameter put at its path (sl_pct, timeframe, indicators.bb.period,
 * entry.conditions[1].value, …), the registry strategy written out as its tree. What the
 * walk-forward view draws a fold's in-sample curve from.
 */
export function foldBacktestBody(s: Settings, meta: Meta, space: readonly { name: string; path: string }[], params: Record<string, number | string>, start: string, end: string): BacktestBody {
  const base = researchBase(s)
  let body: Record<string, unknown>
  if ('strategy' in base && base.strategy) {
    const st = meta.strategies.find(x => x.id === base.strategy)
    const { strategy: _id, ...rest } = base
    const d = st?.default_params
    body = { ...(st ? registryTree(st) : {}), ...rest, sl_pct: rest.sl_pct ?? d?.sl_pct, tp_pct: rest.tp_pct ?? d?.tp_pct, max_bars: rest.max_bars ?? d?.max_bars }
  } else body = { ...base }
  body = structuredClone(body)
  for (const dim of space) if (Object.hasOwn(params, dim.name)) setPath(body, dim.path, params[dim.name])
  // the walk-forward ran on today's universe: the fold's /backtest says so (its own default
  // would be the point-in-time universe for dates over 30 days back)
  const universe = body.symbols ? {} : { universe: 'current' as const }
  return { ...(body as BacktestBody), start_date: start, end_date: end, ...universe }
}

/** obj at `a.b[1].c` = value (the sweep's path syntax); missing objects on the way are made */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(/\.|\[(\d+)\]/).filter(x => x !== undefined && x !== '')
  let cur: Record<string, unknown> = obj
  parts.forEach((p, i) => {
    const key = /^\d+$/.test(p) ? Number(p) : p
    if (i === parts.length - 1) {
      ;(cur as Record<string | number, unknown>)[key] = value
      return
    }
    const next = (cur as Record<string | number, unknown>)[key]
    if (next === null || typeof next !== 'object') (cur as Record<string | number, unknown>)[key] = /^\d+$/.test(parts[i + 1]!) ? [] : {}
    cur = (cur as Record<string | number, unknown>)[key] as Record<string, unknown>
  })
}
