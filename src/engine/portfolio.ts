/**
 * The portfolio: every coin's trades on one timeline (docs/metrics.md §2, "Portfolio").
 *
 * - Trades are taken in entry-time order; ties keep the order of the input (pass the
 *   coins' trade lists concatenated in universe order, so ties go by that order).
 * - A position holds a slot from its entry instant to its exit instant; an entry at
 *   instant T sees every slot freed by exits at or before T. When maxConcurrent slots are
 *   held the entry is skipped and counted (positionsSkipped).
 * - Without compounding each position's margin is perCoinUsd, and the initial capital is
 *   perCoinUsd × min(maxConcurrent, coinCount): the most margin the run can ever have
 *   committed at once.
 * - With compounding perCoinUsd is the starting capital and a position's margin is
 *   equity / maxConcurrent at its entry, where equity = starting capital + the P&L of
 *   every trade closed at or before the entry instant (realised equity: the engine
 *   has no intrabar prices of other coins at that instant). An entry when that equity
 *   is at or below zero is skipped and counted too.
 * - Ruin: the first exit instant at which the realised equity (the same sum) is at or
 *   below zero. With stopAtRuin (the default) no entry at or after that instant is
 *   opened; without it the run goes on as before: fixed margins keep coming as if fresh
 *   capital were added, compounding skips entries while no equity is left.
 * - pnlUsd = marginUsd × pnlPct / 100.
 */
import { finish, type Steps } from './steps'
import { dailyEquityCurve, dayMarksOf, type EquityPoint, type MarkToMarket } from './equity-curve'
import { entryOrderOf } from './entry-order'
import { lowerBound, upperBound } from '../sorted-search'
import { onLoan, selectRows, tradeAt, type SizedTradeTable, type TradeTable } from './trade-table'
import type { Trade } from './types'

export interface PortfolioOptions {
  /** margin per position (no compounding) or starting capital (compounding), USD */
  perCoinUsd: number
  maxConcurrent: number
  compounding: boolean
  /** the leverage the trades ran with (1 on spot), for marking open positions */
  leverage: number
  /** coins in the run (coins_used), for the initial capital without compounding */
  coinCount: number
  /** open no trade once the realised equity has reached zero; default true */
  stopAtRuin?: boolean
}

export interface PortfolioTrade extends Trade {
  marginUsd: number
  pnlUsd: number
}

export interface PortfolioResult {
  /**
   * Accepted trades in input order (coin by coin when the input is): the order every
   * order-free aggregate walks them in.
   */
  trades: SizedTradeTable
  /** rows of `trades` in entry order (ties in input order) */
  entryOrder: Int32Array
  positionsSkipped: number
  initialCapitalUsd: number
  finalEquityUsd: number
  /** the exit instant at which the realised equity reached zero; null when it never did */
  ruinedAtMs: number | null
  /** entries not opened because the portfolio was ruined (stopAtRuin) */
  entriesAfterRuin: number
  /** one point per UTC day of the mark's span, valued at that day's close */
  equityCurve: EquityPoint[]
}

export function initialCapitalUsd(opts: PortfolioOptions): number {
  if (opts.compounding) return opts.perCoinUsd
  return opts.perCoinUsd * Math.max(1, Math.min(opts.maxConcurrent, opts.coinCount))
}

/** Row i of the accepted trades as an object. */
export function portfolioTradeAt(t: SizedTradeTable, i: number): PortfolioTrade {
  const tr = tradeAt(t, i) as PortfolioTrade
  tr.marginUsd = t.marginUsd[i]
  tr.pnlUsd = t.pnlUsd[i]
  return tr
}

/** The accepted trades as objects, in entry order (the answer's lists read the columns instead: runs/present.ts tradeItemsFrom). */
export function tradesInEntryOrder(p: PortfolioResult, from = 0, to = p.entryOrder.length): PortfolioTrade[] {
  const out: PortfolioTrade[] = new Array(Math.max(0, to - from))
  for (let k = from; k < to; k++) out[k - from] = portfolioTradeAt(p.trades, p.entryOrder[k])
  return out
}

/** Rows a step of the portfolio handles before it pauses (a few ms on the main thread). */
const STEP_ROWS = 16384

/** Which trades the portfolio takes, and with what margin. */
export interface Acceptance {
  /** every row of the input in entry order (ties in input order): the order the choice walked */
  order: Int32Array
  /** rows of the input taken, in entry order (ties in input order) */
  taken: Int32Array
  /** margin of each input row, USD (0 where not taken) */
  marginUsd: Float64Array
  positionsSkipped: number
  initialCapitalUsd: number
  /** see PortfolioResult */
  ruinedAtMs: number | null
  entriesAfterRuin: number
  /** the walk's record, when asked for (acceptSteps' `trace`) */
  trace?: AcceptTrace
}

/**
 * What a choice records of its walk when asked (acceptSteps' `trace`): what takesTheSame
 * reads, written in the walk's order so that it reads them in order too.
 */
export class AcceptTrace {
  /** each entry's instant, in entry order */
  readonly entryAt: Float64Array
  /** the positions open at each entry (after the exits up to it: what its slot test saw), in entry order */
  readonly openAt: Int32Array
  /** the taken rows in the order their exits were booked (by instant, ties in acceptance order), each with its instant and realised USD */
  readonly booked: Int32Array
  readonly bookedAt: Float64Array
  readonly bookedUsd: Float64Array
  nBooked = 0
  /** whether a taken row exits at its entry instant (then booked at a later entry's turn, apart from its instant's others) */
  exitAtEntry = false

  constructor(n: number) {
    this.entryAt = new Float64Array(n)
    this.openAt = new Int32Array(n)
    this.booked = new Int32Array(n)
    this.bookedAt = new Float64Array(n)
    this.bookedUsd = new Float64Array(n)
  }
}

/**
 * The columns the portfolio's choice reads (a table's rows in input order: ties of entry
 * time go by it): a run's trade table, or the few columns of one booked for figures only.
 */
export type AcceptInput = Pick<TradeTable, 'n' | 'entryMs' | 'exitMs' | 'pnlPct'>

/** The entries the slots and the margin allow, in entry-time order. */
export function acceptTrades(trades: AcceptInput, opts: PortfolioOptions): Acceptance {
  return finish(acceptSteps(trades, opts))
}

/**
 * acceptTrades, pausing between the entry-time sort and the slot accounting. `order`: the
 * rows in entry order when known (the `order` of a choice over the same entry times, e.g.
 * a table whose exits alone were patched), not sorted again. `trace`: keep the walk's
 * record (a choice another one may be told from: takesTheSame).
 */
export function* acceptSteps(trades: AcceptInput, opts: PortfolioOptions, known: { order?: Int32Array; trace?: boolean } = {}): Steps<Acceptance> {
  if (!(opts.maxConcurrent >= 1)) throw new RangeError('runPortfolio: maxConcurrent must be at least 1')
  let order = known.order
  if (order === undefined) {
    order = entryOrderOf(trades.entryMs)
    yield
  }
  // the accounting runs in a plain method, a step of rows at a time: a loop in a generator
  // keeps its variables in the generator's frame, where every read is a load from memory
  const a = new Acceptor(trades, opts, known.trace === true)
  for (let k = 0; k < trades.n; k += STEP_ROWS) {
    if (k > 0) yield
    a.take(order, k, Math.min(trades.n, k + STEP_ROWS))
  }
  // the exits after the last entry can still ruin the portfolio
  a.settle(Infinity)
  return {
    order,
    taken: a.taken.subarray(0, a.accepted),
    marginUsd: a.marginOf,
    positionsSkipped: a.skipped,
    initialCapitalUsd: a.initial,
    ruinedAtMs: a.ruinedAtMs,
    entriesAfterRuin: a.afterRuin,
    ...(a.trace ? { trace: a.trace } : {}),
  }
}

/** A realised equity at or below this is none left: within rounding of zero (a margin lost whole leaves 1e-13). */
function ruinFloorUsd(initialCapitalUsd: number): number {
  return initialCapitalUsd * 1e-9
}

/**
 * Whether the choice over `changed` (the input of `acceptance` with the exits and P&L of
 * `rows` alone different: the same entries, in the same order) takes the same rows, told
 * without walking it again; false when it cannot be told (walk it). An entry is taken by
 * its slot test, its margin and the ruin, and an untaken row changes none of them. Without
 * compounding a margin is fixed; then, the choices equal up to an entry, its open positions
 * differ only by the taken changed rows whose exit falls on the other side of it (`openAt`
 * ± those), and the ruin comes when the changed exits, booked in their order, bring it.
 */
export function takesTheSame(acceptance: Acceptance, opts: PortfolioOptions, trades: AcceptInput, changed: AcceptInput, rows: readonly number[]): boolean {
  const { marginUsd, order, trace } = acceptance
  const moved = rows.filter(r => marginUsd[r] > 0)
  if (moved.length === 0) return true
  if (opts.compounding || !trace) return false
  const firstEntryAtOrAfter = (ms: number) => lowerBound(trace.entryAt, ms)
  // a row's position: among the entries of its instant, ties go in row order
  const positionOf = (r: number) => {
    let k = lowerBound(trace.entryAt, trades.entryMs[r])
    while (k < order.length && order[k] !== r) k++
    return k
  }
  const shifted = moved.filter(r => trades.exitMs[r] !== changed.exitMs[r])
  const position = new Map(shifted.map(r => [r, positionOf(r)]))
  // the entries from the ruin on open nothing: with stopAtRuin the changed choice's ruin
  // must leave the same entries before it (the choices equal up to it, so it is theirs)
  let until = Infinity
  if (opts.stopAtRuin ?? true) {
    const was = acceptance.ruinedAtMs ?? Infinity
    const now = ruinOf(acceptance, trace, changed, moved, shifted, position, positionOf)
    if (Number.isNaN(now)) return false
    until = Math.min(was, now)
    const between = firstEntryAtOrAfter(Math.max(was, now))
    // entries between the two ruins: opened by neither only if none was taken here (now earlier) or none is there (now later)
    for (let k = firstEntryAtOrAfter(until); k < between; k++) if (now > was || marginUsd[order[k]] > 0) return false
  }
  // each shifted row is open in one choice and closed in the other at the later entries between its two exits
  const events: [number, number][] = []
  for (const r of shifted) {
    const a = trades.exitMs[r]
    const b = changed.exitMs[r]
    const from = Math.max(position.get(r)! + 1, firstEntryAtOrAfter(Math.min(a, b)))
    const to = Math.min(firstEntryAtOrAfter(Math.max(a, b)), firstEntryAtOrAfter(until))
    if (from < to) events.push([from, b > a ? 1 : -1], [to, b > a ? -1 : 1])
  }
  events.sort((x, y) => x[0] - y[0])
  let d = 0
  for (let e = 0; e < events.length; e++) {
    d += events[e][1]
    const end = e + 1 < events.length ? events[e + 1][0] : order.length
    if (d !== 0 && !slotsAlike(acceptance, trace.openAt, opts.maxConcurrent, events[e][0], end, d)) return false
  }
  return true
}

/** Whether the entries at positions from … to − 1 of the entry order, with `d` more positions open, meet the slot test as they did. */
function slotsAlike(acceptance: Acceptance, openAt: Int32Array, maxConcurrent: number, from: number, to: number, d: number): boolean {
  const { order, marginUsd } = acceptance
  for (let k = from; k < to; k++) {
    // a taken entry finding every slot held, or a skipped one (every slot held) finding one free
    if (marginUsd[order[k]] > 0 ? openAt[k] + d >= maxConcurrent : openAt[k] + d < maxConcurrent) return false
  }
  return true
}

/**
 * The instant the same rows taken, with the exits and P&L of `changed`, reach the ruin
 * (Infinity: never): their exits booked as the choice books them (by instant, ties in
 * acceptance order), the same additions in the same order: the trace's booking with the
 * `moved` rows' P&L changed and the `shifted` ones (at `position` in entry order) taken out
 * and put back at their new exits. NaN where a row exits at its entry instant: such an
 * exit is booked at a later entry's turn, apart from its instant's others, which this does
 * not follow.
 */
function ruinOf(
  acceptance: Acceptance,
  trace: AcceptTrace,
  changed: AcceptInput,
  moved: readonly number[],
  shifted: readonly number[],
  position: ReadonlyMap<number, number>,
  positionOf: (row: number) => number,
): number {
  const { marginUsd, initialCapitalUsd: initial } = acceptance
  const exitMs = changed.exitMs
  if (trace.exitAtEntry || shifted.some(r => !(exitMs[r] > changed.entryMs[r]))) return Number.NaN
  const late = shifted.slice().sort((a, b) => exitMs[a] - exitMs[b] || position.get(a)! - position.get(b)!)
  const usdOf = (r: number) => (marginUsd[r] * changed.pnlPct[r]) / 100
  const isMoved = new Uint8Array(changed.n)
  for (const r of moved) isMoved[r] = 1
  const floor = ruinFloorUsd(initial)
  const { booked, bookedAt, bookedUsd } = trace
  let realised = 0
  // the instant being booked: the equity is judged once its exits are all booked
  let at = Number.NaN
  let m = 0
  for (let k = 0; k <= trace.nBooked; k++) {
    const last = k === trace.nBooked
    const r = last ? -1 : booked[k]
    if (!last && isMoved[r] === 1 && position.has(r)) continue
    const e = last ? Infinity : bookedAt[k]
    // the shifted rows due before this one (a tie of instants goes by acceptance order, the entry order's)
    while (m < late.length && (exitMs[late[m]] < e || (exitMs[late[m]] === e && position.get(late[m])! < positionOf(r)))) {
      const j = late[m++]
      if (exitMs[j] !== at) {
        if (initial + realised <= floor) return at
        at = exitMs[j]
      }
      realised += usdOf(j)
    }
    if (last) break
    if (e !== at) {
      if (initial + realised <= floor) return at
      at = e
    }
    realised += isMoved[r] === 1 ? usdOf(r) : bookedUsd[k]
  }
  return initial + realised <= floor ? at : Infinity
}

/** The slot and margin accounting of acceptSteps (see the file's head), over rows in entry order. */
class Acceptor {
  readonly initial: number
  /** open positions by exit instant, ties in acceptance order */
  private readonly open: OpenPositions
  readonly marginOf: Float64Array
  readonly taken: Int32Array
  /** the walk's record (null when not asked for) */
  readonly trace: AcceptTrace | null
  private readonly stopAtRuin: boolean
  /** a realised equity within rounding of zero is none left (a margin lost whole leaves 1e-13) */
  private readonly ruinedBelow: number
  accepted = 0
  realisedUsd = 0
  skipped = 0
  ruinedAtMs: number | null = null
  afterRuin = 0

  constructor(
    private readonly trades: AcceptInput,
    private readonly opts: PortfolioOptions,
    trace: boolean,
  ) {
    const n = trades.n
    this.initial = initialCapitalUsd(opts)
    this.open = new OpenPositions(Math.min(opts.maxConcurrent, n) + 1)
    this.marginOf = new Float64Array(n)
    this.taken = new Int32Array(n)
    this.trace = trace ? new AcceptTrace(n) : null
    this.stopAtRuin = opts.stopAtRuin ?? true
    this.ruinedBelow = ruinFloorUsd(this.initial)
  }

  /** Enter (or skip) the rows order[from … to − 1], in that order. */
  take(order: Int32Array, from: number, to: number): void {
    const { entryMs, exitMs } = this.trades
    const { maxConcurrent, compounding, perCoinUsd } = this.opts
    const open = this.open
    const trace = this.trace
    for (let k = from; k < to; k++) {
      const i = order[k]
      const at = entryMs[i]
      // settle's own first test, here: most entries (the skipped ones among them) find no exit to book
      if (open.size > 0 && open.firstKey() <= at) this.settle(at)
      if (trace !== null) {
        trace.entryAt[k] = at
        trace.openAt[k] = open.size
      }
      if (this.ruinedAtMs !== null && this.stopAtRuin) {
        this.afterRuin++
        continue
      }
      if (open.size >= maxConcurrent) {
        this.skipped++
        continue
      }
      const equity = this.initial + this.realisedUsd
      const marginUsd = compounding ? equity / maxConcurrent : perCoinUsd
      if (!(marginUsd > 0)) {
        this.skipped++
        continue
      }
      this.marginOf[i] = marginUsd
      if (trace !== null && exitMs[i] <= at) trace.exitAtEntry = true
      open.push(exitMs[i], i)
      this.taken[this.accepted++] = i
    }
  }

  /** Book the exits at or before `untilMs`, an instant's exits together, noting the ruin. */
  settle(untilMs: number): void {
    const open = this.open
    const pnlPct = this.trades.pnlPct
    const marginOf = this.marginOf
    const trace = this.trace
    while (open.size > 0 && open.firstKey() <= untilMs) {
      const at = open.firstKey()
      let realised = this.realisedUsd
      while (open.size > 0 && open.firstKey() === at) {
        const j = open.shift()
        const usd = (marginOf[j] * pnlPct[j]) / 100
        realised += usd
        if (trace !== null) {
          trace.booked[trace.nBooked] = j
          trace.bookedAt[trace.nBooked] = at
          trace.bookedUsd[trace.nBooked++] = usd
        }
      }
      this.realisedUsd = realised
      if (this.ruinedAtMs === null && this.initial + realised <= this.ruinedBelow) this.ruinedAtMs = at
    }
  }
}

/**
 * Open positions in the order they close: by exit instant, ties in the order they were
 * opened (IndexHeap's order with the acceptance count as its tie). A sorted buffer rather
 * than a heap: the next to close is always the first, and a new position's exit falls
 * among the latest, so it is placed a few steps from the end (about twice as fast as the
 * heap with a hundred open positions).
 */
class OpenPositions {
  private keys: Float64Array
  private rows: Int32Array
  private head = 0
  private tail = 0

  constructor(capacity: number) {
    // twice the most it holds: the buffer is moved back to its start only when its end is reached
    this.keys = new Float64Array(2 * Math.max(1, capacity))
    this.rows = new Int32Array(this.keys.length)
  }

  get size(): number {
    return this.tail - this.head
  }

  firstKey(): number {
    return this.keys[this.head]
  }

  /** Remove the first (the next to close) and return its row. */
  shift(): number {
    return this.rows[this.head++]
  }

  /** Add a position closing at `key`, after every one closing at or before it. */
  push(key: number, row: number): void {
    let keys = this.keys
    let rows = this.rows
    if (this.tail === keys.length) {
      if (this.head === 0) {
        // full (a caller holding more than its capacity): grow
        const k2 = new Float64Array(2 * keys.length)
        const r2 = new Int32Array(2 * keys.length)
        k2.set(keys)
        r2.set(rows)
        this.keys = keys = k2
        this.rows = rows = r2
      } else {
        keys.copyWithin(0, this.head, this.tail)
        rows.copyWithin(0, this.head, this.tail)
        this.tail -= this.head
        this.head = 0
      }
    }
    const head = this.head
    let j = this.tail
    // from the end: most new exits are among the latest; far from it, a binary search and one move
    if (j - head > 32 && keys[j - 32] > key) {
      const lo = upperBound(keys, key, j - 32, head)
      keys.copyWithin(lo + 1, lo, j)
      rows.copyWithin(lo + 1, lo, j)
      j = lo
    } else {
      while (j > head && keys[j - 1] > key) {
        keys[j] = keys[j - 1]
        rows[j] = rows[j - 1]
        j--
      }
    }
    keys[j] = key
    rows[j] = row
    this.tail++
  }
}

/** The taken trades, sized, in input order, and their rows in entry order. */
export interface SizedTrades {
  trades: SizedTradeTable
  entryOrder: Int32Array
  finalEquityUsd: number
}

/** Size the taken trades (their margin and USD P&L), keeping the input order. */
export function sizeTrades(trades: TradeTable, acceptance: Acceptance): SizedTrades {
  return finish(sizeSteps(trades, acceptance))
}

/** sizeTrades, pausing before and after copying the taken rows. */
export function* sizeSteps(trades: TradeTable, acceptance: Acceptance): Steps<SizedTrades> {
  const { taken, marginUsd: marginOf } = acceptance
  const n = trades.n
  const accepted = taken.length
  let sized: SizedTradeTable
  let entryOrder: Int32Array
  if (accepted === n && !onLoan(trades)) {
    // every trade taken: the columns are shared, not copied (tables are never written after
    // they are made; a lent table's columns are another run's once this one is booked)
    sized = { ...trades } as SizedTradeTable
    sized.marginUsd = marginOf
    entryOrder = taken
  } else {
    const isTaken = new Uint8Array(n)
    for (let k = 0; k < accepted; k++) isTaken[taken[k]] = 1
    const rows = new Int32Array(accepted)
    const rowOf = new Int32Array(n)
    for (let i = 0, a = 0; i < n; i++) {
      if (isTaken[i] === 0) continue
      rowOf[i] = a
      rows[a++] = i
    }
    // entryOrder maps entry order onto the kept rows
    entryOrder = new Int32Array(accepted)
    for (let k = 0; k < accepted; k++) entryOrder[k] = rowOf[taken[k]]
    yield
    sized = selectRows(trades, rows) as SizedTradeTable
    yield
    sized.marginUsd = new Float64Array(accepted)
    for (let a = 0; a < accepted; a++) sized.marginUsd[a] = marginOf[rows[a]]
  }
  sized.pnlUsd = new Float64Array(accepted)
  let totalPnlUsd = 0
  for (let a = 0; a < accepted; a++) {
    const usd = (sized.marginUsd[a] * sized.pnlPct[a]) / 100
    sized.pnlUsd[a] = usd
    totalPnlUsd += usd
  }
  return { trades: sized, entryOrder, finalEquityUsd: acceptance.initialCapitalUsd + totalPnlUsd }
}

/** The sized trades marked at every day's close: the portfolio. */
export function markPortfolio(sized: SizedTrades, acceptance: Acceptance, opts: PortfolioOptions, mark: MarkToMarket): PortfolioResult {
  const trades = sized.trades
  // marks come with the trades from the workers; computed here for tables made elsewhere
  if (!trades.marks) trades.marks = dayMarksOf(trades, mark.barsOf, opts.leverage)
  const initial = acceptance.initialCapitalUsd
  return {
    trades,
    entryOrder: sized.entryOrder,
    positionsSkipped: acceptance.positionsSkipped,
    initialCapitalUsd: initial,
    ruinedAtMs: acceptance.ruinedAtMs,
    entriesAfterRuin: acceptance.entriesAfterRuin,
    finalEquityUsd: sized.finalEquityUsd,
    equityCurve: dailyEquityCurve(trades, initial, mark.fromDayMs, mark.toDayMs),
  }
}

/**
 * Accept and size the trades, then mark the portfolio at every day's close (with the
 * trades' marks when they carry them, else valued on mark.barsOf).
 */
export function runPortfolio(trades: TradeTable, opts: PortfolioOptions, mark: MarkToMarket): PortfolioResult {
  const acceptance = acceptTrades(trades, opts)
  return markPortfolio(sizeTrades(trades, acceptance), acceptance, opts, mark)
}
