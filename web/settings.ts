/**
 * The page's settings and the URL query that holds them. The names /share uses (strategy,
 * dir, sl, tp, topN, lev, fee, from, to, lang; `preset` as /share's name for the strategy)
 * mean here what they mean there, so a /share link lands on the same run: `fee` is a
 * percent per side (0.05 = 0.05 %), unlike the API's fraction. The rest are the page's own
 * (docs/web.md). A value the page cannot read is kept as typed and sent, so the server's
 * 422 names it; nothing is clamped here.
 */
import type { ConditionTree } from '../src/model/shared'
import { compactDay, DAY_MS } from '../src/time'

export type ConditionNode = typeof ConditionTree.static

export type View = 'simulate' | 'coin' | 'compare' | 'validate' | 'optimize' | 'sweep' | 'walkforward' | 'rankings' | 'signals' | 'paper' | 'trust'
export const VIEWS: readonly View[] = ['simulate', 'coin', 'compare', 'validate', 'optimize', 'sweep', 'walkforward', 'rankings', 'signals', 'paper', 'trust']

/** one dimension of a sweep's space as the page edits it: a path and its values as typed ("3,5,8" or "min:max:step") */
export interface SpaceRow {
  path: string
  values: string
}
export type Lang = 'en' | 'ko'
export type Mode = 'registry' | 'builder'
export type Universe = 'top' | 'symbols'
/** the universe field of a top-N request ('' = leave it to the server's default rule) */
export type AsOf = '' | 'point_in_time' | 'current'

/** the builder's strategy: indicators with their params and an entry tree */
export interface BuilderSpec {
  name: string
  dir: 'long' | 'short'
  indicators: Record<string, Record<string, number>>
  entry: ConditionNode
}

export interface Settings {
  view: View
  lang: Lang
  mode: Mode
  /** registry id */
  strategy: string
  /** builder preset the custom tree started from ('' = none) */
  preset: string
  builder: BuilderSpec | null
  /** numbers stay strings: '' = the default, anything else is sent as typed */
  sl: string
  tp: string
  bars: string
  lev: string
  fee: string
  universe: Universe
  /** top-N runs: the coins as known then (point_in_time), today's coins (current), or the server's default ('') */
  asOf: AsOf
  topN: string
  symbols: string
  from: string
  to: string
  tf: string
  comp: boolean
  /** compare view's top N (the contract's compare takes at most 5) */
  cmpN: string
  /** coin view */
  symbol: string
  /** validate view */
  oos: string
  sims: string
  /** optimize view */
  slGrid: string
  tpGrid: string
  /** sweep and walk-forward views: the space (JSON of SpaceRow[]), the search and its objective */
  space: string
  method: string
  budget: string
  seed: string
  objective: string
  minTrades: string
  /** walk-forward view: fold layout */
  wfMode: string
  isDays: string
  oosDays: string
  folds: string
  purge: string
  /** rankings view: period, group, day ('' = the latest) */
  period: string
  group: string
  rdate: string
  /** signals view: recent hours, scored days */
  sigHours: string
  sigDays: string
  /** paper view: the cycle ('' = the latest) */
  cycle: string
  /** trust view: the Merkle day, YYYY-MM-DD ('' = yesterday, UTC) */
  tday: string
  /** execution (issue 25): slippage model, impact k, take-profit order, maker and liquidation fees in percent, margin model */
  slip: string
  impactK: string
  tpOrder: string
  makerFee: string
  liqFee: string
  margin: string
  /** execution group: how exits inside a bar are found (the API's `intrabar`) */
  intrabar: string
}

/** a change of settings: a patch, or a function of the latest settings (for edits that build on the last one) */
export type SetSettings = (p: Partial<Settings> | ((s: Settings) => Partial<Settings>)) => void

export const DEFAULTS: Settings = {
  view: 'simulate',
  lang: 'en',
  mode: 'registry',
  strategy: 'bb-squeeze-short',
  preset: '',
  builder: null,
  sl: '',
  tp: '',
  bars: '',
  lev: '1',
  fee: '0.05',
  universe: 'top',
  asOf: '',
  topN: '50',
  symbols: '',
  from: '',
  to: '',
  tf: '1H',
  comp: false,
  cmpN: '5',
  symbol: 'BTCUSDT',
  oos: '30',
  sims: '1000',
  slGrid: '3,5,8,10',
  tpGrid: '4,8,12',
  space: JSON.stringify([
    { path: 'sl_pct', values: '3,5,8' },
    { path: 'tp_pct', values: '4,8,12' },
  ]),
  method: 'grid',
  budget: '',
  seed: '0',
  objective: 'sharpe_ratio',
  minTrades: '30',
  wfMode: 'rolling',
  isDays: '180',
  oosDays: '60',
  folds: '4',
  purge: '0',
  period: '30d',
  group: 'top50',
  rdate: '',
  sigHours: '24',
  sigDays: '14',
  cycle: '',
  tday: '',
  slip: 'impact',
  impactK: '1',
  tpOrder: 'market',
  makerFee: '0.02',
  liqFee: '1.25',
  margin: 'brackets',
  intrabar: 'detail',
}

/** query name of each plain string setting */
const NAMES: ReadonlyArray<[keyof Settings & string, string]> = [
  ['strategy', 'strategy'],
  ['sl', 'sl'],
  ['tp', 'tp'],
  ['bars', 'bars'],
  ['lev', 'lev'],
  ['fee', 'fee'],
  ['topN', 'topN'],
  ['symbols', 'symbols'],
  ['from', 'from'],
  ['to', 'to'],
  ['tf', 'tf'],
  ['cmpN', 'cmpN'],
  ['symbol', 'symbol'],
  ['oos', 'oos'],
  ['sims', 'sims'],
  ['slGrid', 'slGrid'],
  ['tpGrid', 'tpGrid'],
  ['space', 'space'],
  ['method', 'method'],
  ['budget', 'budget'],
  ['seed', 'seed'],
  ['objective', 'objective'],
  ['minTrades', 'minTrades'],
  ['wfMode', 'wf'],
  ['isDays', 'is'],
  ['oosDays', 'oosDays'],
  ['folds', 'folds'],
  ['purge', 'purge'],
  ['period', 'period'],
  ['group', 'group'],
  ['rdate', 'date'],
  ['sigHours', 'hours'],
  ['sigDays', 'days'],
  ['cycle', 'cycle'],
  ['tday', 'day'],
  ['slip', 'slippage'],
  ['impactK', 'impactK'],
  ['tpOrder', 'tpOrder'],
  ['makerFee', 'makerFee'],
  ['liqFee', 'liqFee'],
  ['margin', 'margin'],
  ['intrabar', 'intrabar'],
]

/** `bb-squeeze` + `short` or `bb-squeeze-long` + `short` → `bb-squeeze-short` (when that id exists) */
export function resolveStrategyId(id: string, dir: string | null, known: readonly string[]): string {
  const base = id.replace(/-(long|short)$/, '')
  if (dir === 'long' || dir === 'short') {
    const withDir = `${base}-${dir}`
    if (known.includes(withDir)) return withDir
  }
  if (known.includes(id)) return id
  for (const d of ['short', 'long']) if (known.includes(`${base}-${d}`)) return `${base}-${d}`
  return id
}

export function directionOf(strategyId: string): 'long' | 'short' | null {
  const m = /-(long|short)$/.exec(strategyId)
  return m ? (m[1] as 'long' | 'short') : null
}

function readBuilder(raw: string | null): BuilderSpec | null {
  if (!raw) return null
  try {
    const v = JSON.parse(raw) as BuilderSpec
    if (v && typeof v === 'object' && v.entry && typeof v.entry === 'object') {
      return { name: String(v.name ?? 'Custom Strategy'), dir: v.dir === 'long' ? 'long' : 'short', indicators: v.indicators ?? {}, entry: v.entry }
    }
  } catch {}
  return null
}

/**
 * Settings from a query string. `known` is the registry's ids (to resolve strategy + dir);
 * `presetIds` the builder's presets (a /share `preset` naming one opens the builder with it).
 */
export function fromQuery(search: string, known: readonly string[] = [], presetIds: readonly string[] = []): Settings {
  const q = new URLSearchParams(search)
  const s: Settings = { ...DEFAULTS }
  for (const [key, name] of NAMES) {
    const v = q.get(name)
    if (v !== null) (s as unknown as Record<string, string>)[key] = v
  }
  const view = q.get('view')
  if (view && (VIEWS as readonly string[]).includes(view)) s.view = view as View
  const lang = q.get('lang')
  if (lang === 'ko' || lang === 'en') s.lang = lang
  s.comp = q.get('comp') === '1' || q.get('comp') === 'true'
  if (q.get('universe') === 'symbols' || (q.get('symbols') && q.get('universe') !== 'top')) s.universe = 'symbols'
  const asOf = q.get('asof')
  if (asOf === 'point_in_time' || asOf === 'current') s.asOf = asOf
  const dir = q.get('dir')
  const preset = q.get('preset')
  s.builder = readBuilder(q.get('b'))
  if (s.builder || q.get('mode') === 'builder') s.mode = 'builder'
  if (preset !== null) {
    if (presetIds.includes(preset) && q.get('strategy') === null) {
      s.mode = 'builder'
      s.preset = preset
    } else if (q.get('strategy') === null) s.strategy = preset
  }
  if (q.get('strategy') !== null || (preset !== null && !presetIds.includes(preset))) s.strategy = resolveStrategyId(s.strategy, dir, known)
  if (s.mode === 'builder' && s.builder && (dir === 'long' || dir === 'short')) s.builder = { ...s.builder, dir }
  return s
}

/** The query for a settings object: only what differs from the defaults, plus what a run needs to be reproduced. */
export function toQuery(s: Settings, opts: { run?: boolean } = {}): string {
  const q = new URLSearchParams()
  if (s.view !== 'simulate') q.set('view', s.view)
  if (s.lang !== 'en') q.set('lang', s.lang)
  if (s.mode === 'builder') {
    q.set('mode', 'builder')
    if (s.preset) q.set('preset', s.preset)
    if (s.builder) q.set('b', JSON.stringify(s.builder))
  } else if (opts.run || s.strategy !== DEFAULTS.strategy) {
    q.set('strategy', s.strategy)
    const d = directionOf(s.strategy)
    if (d) q.set('dir', d)
  }
  for (const [key, name] of NAMES) {
    if (key === 'strategy') continue
    const v = (s as unknown as Record<string, string>)[key]
    if (v !== (DEFAULTS as unknown as Record<string, string>)[key]) q.set(name, v)
  }
  if (s.universe === 'symbols') q.set('universe', 'symbols')
  if (s.asOf) q.set('asof', s.asOf)
  if (s.comp) q.set('comp', '1')
  return q.toString()
}

/** the space's rows from the setting (a row list that does not parse is no rows: the server's 422 names the empty space) */
export function spaceRows(raw: string): SpaceRow[] {
  try {
    const v = JSON.parse(raw) as unknown
    if (Array.isArray(v)) return v.filter((r): r is SpaceRow => !!r && typeof r === 'object' && typeof r.path === 'string' && typeof r.values === 'string')
  } catch {}
  return []
}

/** '' → undefined (the server's default); anything else as a number, or as typed when it is not one (the server says why) */
export function num(v: string): number | undefined {
  const t = v.trim()
  if (t === '') return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : (t as unknown as number)
}

export function symbolList(v: string): string[] {
  return v
    .split(/[\s,]+/)
    .map(x => x.trim().toUpperCase())
    .filter(Boolean)
}

export function numberList(v: string): number[] {
  return v
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(x => {
      const n = Number(x)
      return Number.isFinite(n) ? n : (x as unknown as number)
    })
}

/** the trust view's day as /trust/merkle/{YYYYMMDD} takes it: '' = yesterday (UTC); YYYY-MM-DD without dashes; anything else as typed (the server's 422 says why) */
export function merkleDayKey(tday: string, nowMs = Date.now()): string {
  const v = tday.trim()
  if (v === '') return compactDay(nowMs - DAY_MS)
  return /^\d{4}-\d{2}-\d{2}$/.test(v) ? v.replaceAll('-', '') : v
}
