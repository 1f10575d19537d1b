/**
 * A run's `intrabar` answer (docs/api.md, docs/metrics.md §1 "Minute detail"): the check of
 * `detail_required`, the chunks' replay counts merged, and the bar rule's figures of the
 * same run beside the detail's (`rule_bias`). Built on the main thread for a run, and on a
 * worker for each of compare's runs (compute/coin-tasks.ts runWholeRuns).
 */
import { pnlFigures } from '../engine/metrics-breakdown'
import type { IntrabarCounts } from '../engine/intrabar'
import type { BacktestMetrics } from '../engine/metrics'
import { acceptSteps, takesTheSame, type Acceptance, type PortfolioOptions } from '../engine/portfolio'
import { mergeCoinTables, selectRows, tradeAt, TradeTableBuilder, type TradeTable } from '../engine/trade-table'
import type { CandleStore } from '../market/candle-store'
import { InvalidRequest } from './errors'
import type { IntrabarBlock } from './result-model'
import { intrabarOf, type RunSpec } from './spec'
import { finish } from '../engine/steps'

/** at most this many coins are named in a warning or a 422 */
const NAMED = 20

const named = (symbols: readonly string[]) => symbols.slice(0, NAMED).join(', ') + (symbols.length > NAMED ? ` and ${symbols.length - NAMED} more` : '')

/** `intrabar: "detail_required"` on coins without minute detail: a 422 naming them. */
export function checkDetailRequired(spec: RunSpec, symbols: readonly string[], store: CandleStore): void {
  if (intrabarOf(spec) !== 'detail_required') return
  const without = symbols.filter(s => store.detailSource(s) === null)
  if (without.length === 0) return
  throw new InvalidRequest([
    {
      loc: ['body', 'intrabar'],
      msg: `intrabar 'detail_required': ${without.length} of the run's ${symbols.length} coins have no 1m detail (${named(without)}); import or sync it (data import, data sync --detail 1m), or use 'detail' to resolve their bars by the bar rule`,
      input: 'detail_required',
    },
  ])
}

/** What a chunk's coins did with minute detail (a coin task's answer, compute/coin-tasks.ts). */
export interface ChunkIntrabar extends IntrabarCounts {
  /** coins of the chunk with no minute detail at all */
  coinsWithout: string[]
  /** coins of the chunk where a minute replay changed a trade */
  changedCoins: string[]
  /**
   * those coins' trades under the bar rule (for `rule_bias`; the other coins' bar-rule
   * trades are their trades), coin by coin: where the bar rule's trades pair one to one
   * with the coin's trades (the same entries) only the ones that differ, else all of them
   */
  barTrades: TradeTable
  /**
   * for each row of barTrades, the index among its coin's trades (in time order) of the
   * trade it stands for; −1 on every row of a coin whose bar-rule trades are all there
   */
  barRows: Int32Array
}

/** Where a coin's minutes come from (CandleStore.detailSource; a worker answers it from its view: compute/intrabar-detail.ts). */
export interface DetailSources {
  detailSource(symbol: string): 'stored' | 'derived' | null
}

/** The chunks' replays as one: counts summed, coins without detail in universe order, the bar rule's trades merged. */
export interface RunIntrabar {
  replayed: number
  leftToRule: number
  /** ambiguous bars whose liquidation the mark bar decided (no mark minutes) */
  markLeftToRule: number
  coinsWithout: string[]
  /** coins where a replay changed a trade, and the chunks' bar-rule trades of those coins (ChunkIntrabar barTrades, barRows) */
  changedCoins: Set<string>
  barParts: TradeTable[]
  barRows: Int32Array[]
}

export function mergeIntrabar(symbols: readonly string[], parts: readonly (ChunkIntrabar | undefined)[]): RunIntrabar | null {
  if (parts.length === 0 || parts.some(p => p === undefined)) return null
  const ps = parts as ChunkIntrabar[]
  const without = new Set(ps.flatMap(p => p.coinsWithout))
  return {
    replayed: ps.reduce((a, p) => a + p.replayed, 0),
    leftToRule: ps.reduce((a, p) => a + p.leftToRule, 0),
    markLeftToRule: ps.reduce((a, p) => a + (p.markLeftToRule ?? 0), 0),
    coinsWithout: symbols.filter(s => without.has(s)),
    changedCoins: new Set(ps.flatMap(p => p.changedCoins)),
    barParts: ps.map(p => p.barTrades),
    barRows: ps.map(p => p.barRows),
  }
}


/**
 * The `intrabar` block of a run that asked for a mode (a spec without one, made before the
 * setting or by a job that does not say, answers none), and its warning.
 */
export function intrabarBlock(
  spec: RunSpec,
  symbols: readonly string[],
  store: DetailSources,
  run: RunIntrabar | null,
  trades: TradeTable,
  acceptance: Acceptance,
  metrics: BacktestMetrics,
  portfolio: PortfolioOptions,
  /** the bar rule's figures when known (the cached result of the same run and trades): not chosen and booked again */
  knownBar: NonNullable<IntrabarBlock['rule_bias']>['bar'] | null = null,
): { block: IntrabarBlock; warning: string | null } | null {
  if (spec.intrabar === undefined) return null
  const mode = intrabarOf(spec)
  if (mode === 'bar' || run === null) {
    const without = symbols.filter(s => store.detailSource(s) === null).length
    return { block: { mode, detail_timeframe: null, bars_replayed: 0, bars_left_to_rule: 0, trades_changed: 0, coins_without_detail: without, rule_bias: null }, warning: null }
  }
  // the bar rule's run: its own portfolio choice over its own trades (the run's own where no replay changed one)
  const detail = { total_return_pct: metrics.total_return_pct, win_rate: metrics.win_rate, profit_factor: metrics.profit_factor }
  let bar = detail
  if (knownBar !== null) bar = knownBar
  else if (run.changedCoins.size > 0) {
    const ranges = coinRanges(symbols, trades)
    const patched = ranges && patchedBarTrades(symbols, trades, ranges, run.barParts, run.barRows)
    if (!patched) {
      // a coin's bar-rule trades part from its own (or the table is not in universe order): the bar rule's table, merged
      const keep: number[] = []
      for (let r = 0; r < trades.n; r++) if (!run.changedCoins.has(trades.symbols[trades.coin[r]])) keep.push(r)
      const barTrades = mergeCoinTables(symbols, trades.direction, [selectRows(trades, Int32Array.from(keep)), ...run.barParts.map((p, k) => wholeBarTrades(trades, p, run.barRows[k]))])
      // straight through: a choice over the run's trades takes a millisecond or two, less than the turns of the loop pausing would add
      const barAcceptance = finish(acceptSteps(barTrades, portfolio))
      bar = pnlFigures(barTrades.pnlPct, barAcceptance.taken)
    } else if (takesTheSame(acceptance, portfolio, trades, patched.table, patched.rows)) {
      // the bar rule's prices change no entry of the portfolio's choice (engine/portfolio.ts)
      bar = pnlFigures(patched.table.pnlPct, acceptance.taken)
    } else {
      // the patched table shares the run's entry times (only exits and P&L differ): the run's entry order is its own
      bar = pnlFigures(patched.table.pnlPct, finish(acceptSteps(patched.table, portfolio, { order: acceptance.order })).taken)
    }
  }
  let changed = 0
  // indexed: a for-of over a typed array goes through its iterator, several times slower
  const taken = acceptance.taken
  for (let k = 0; k < taken.length; k++) if (trades.resolution[taken[k]] === 3) changed++
  const block: IntrabarBlock = {
    mode,
    detail_timeframe: '1m',
    bars_replayed: run.replayed,
    bars_left_to_rule: run.leftToRule,
    trades_changed: changed,
    coins_without_detail: run.coinsWithout.length,
    rule_bias: {
      bar,
      detail,
    },
  }
  const warning =
    run.leftToRule > 0
      ? `intrabar: ${run.leftToRule} bars whose exit depends on the path inside them were resolved by the bar rule (no 1m detail there)` +
        (run.coinsWithout.length > 0 ? `; ${run.coinsWithout.length} coins have no detail at all (${named(run.coinsWithout)})` : '; their coins have detail for part of their history only')
      : null
  const markWarning =
    run.markLeftToRule > 0
      ? `intrabar: in ${run.markLeftToRule} bars the mark price reached the liquidation price and the minutes could have put another exit first; the store holds no mark-price minutes, so the mark bar decided (liquidation)`
      : null
  return { block, warning: [warning, markWarning].filter(w => w !== null).join('; ') || null }
}

/** Each coin's row range [from, to) in the run's table, by universe index; null unless the table is coin-grouped in `symbols` order. */
function coinRanges(symbols: readonly string[], trades: TradeTable): { from: Int32Array; to: Int32Array } | null {
  if (trades.symbols !== symbols && (trades.symbols.length !== symbols.length || trades.symbols.some((s, i) => s !== symbols[i]))) return null
  const from = new Int32Array(symbols.length).fill(-1)
  const to = new Int32Array(symbols.length)
  for (let r = 0; r < trades.n; ) {
    const c = trades.coin[r]
    if (from[c] !== -1 || (r > 0 && c < trades.coin[r - 1])) return null
    let j = r + 1
    while (j < trades.n && trades.coin[j] === c) j++
    from[c] = r
    to[c] = j
    r = j
  }
  return { from, to }
}

/**
 * The bar rule's trades of the run as the run's own table with the rows the bar rule
 * prices differently patched (exit time and net P&L: what the portfolio's choice and
 * `pnlFigures` read), and those rows; null where a changed coin's bar-rule trades do
 * not pair one to one with its trades (barRows −1: the paths parted at a trailing exit).
 * The rows and their order are then the merged table's (coin blocks in universe order,
 * the same entries), so the choice over it and the figures are the same to the last bit,
 * without merging and copying every column.
 */
function patchedBarTrades(
  symbols: readonly string[],
  trades: TradeTable,
  ranges: { from: Int32Array; to: Int32Array },
  barParts: readonly TradeTable[],
  barRows: readonly Int32Array[],
): { table: TradeTable; rows: number[] } | null {
  const index = new Map(symbols.map((s, i) => [s, i]))
  const exitMs = trades.exitMs.slice()
  const pnlPct = trades.pnlPct.slice()
  const rows: number[] = []
  for (let p = 0; p < barParts.length; p++) {
    const part = barParts[p]
    const at = barRows[p]
    for (let i = 0; i < part.n; i++) {
      const u = index.get(part.symbols[part.coin[i]])
      if (u === undefined || at[i] < 0 || ranges.from[u] < 0 || at[i] >= ranges.to[u] - ranges.from[u]) return null
      const r = ranges.from[u] + at[i]
      if (part.entryMs[i] !== trades.entryMs[r]) return null
      exitMs[r] = part.exitMs[i]
      pnlPct[r] = part.pnlPct[i]
      rows.push(r)
    }
  }
  return { table: { ...trades, exitMs, pnlPct }, rows }
}

/** A chunk's bar-rule trades of its changed coins, every trade: where they stand in for some of a coin's own (barRows ≥ 0), its own with those replaced. */
function wholeBarTrades(trades: TradeTable, part: TradeTable, at: Int32Array): TradeTable {
  const out = new TradeTableBuilder(part.direction, part.symbols)
  const ownRows = new Map<string, number[]>()
  for (let r = 0; r < trades.n; r++) {
    const s = trades.symbols[trades.coin[r]]
    let list = ownRows.get(s)
    if (!list) ownRows.set(s, (list = []))
    list.push(r)
  }
  for (let i = 0; i < part.n; ) {
    const c = part.coin[i]
    let j = i + 1
    while (j < part.n && part.coin[j] === c) j++
    if (at[i] < 0) for (let k = i; k < j; k++) out.push(tradeAt(part, k), c)
    else {
      const own = ownRows.get(part.symbols[c]) ?? []
      const stand = new Map<number, number>()
      for (let k = i; k < j; k++) stand.set(at[k], k)
      own.forEach((r, k) => {
        const s = stand.get(k)
        out.push(s === undefined ? tradeAt(trades, r) : tradeAt(part, s), c)
      })
    }
    i = j
  }
  return out.finish()
}
