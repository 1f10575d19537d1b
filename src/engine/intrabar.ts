/**
 * Minute detail inside a bar (docs/metrics.md §1, "Minute detail"): the bars whose exit
 * depends on the path inside them are replayed minute by minute with the trade model's
 * rules 1–4 applied to each minute. The trade model (trade-model.ts) decides which bars
 * need it and calls `IntrabarReplay.replay`; the minutes come through an injected
 * `IntrabarDetail` (built by the coin task from the store: stored 1m candles or the
 * synthetic market's derived minutes), so the engine stays pure.
 */
import { EXIT_REASON_CODE } from './types'
import { MINUTE_MS } from '../time'


/** Minutes of one bar: rows from … to − 1 of the columns (times are the minutes' open times). */
export interface MinuteSpan {
  t: Float64Array
  o: Float64Array
  h: Float64Array
  l: Float64Array
  c: Float64Array
  from: number
  to: number
}

/**
 * The minute candles of one coin. `minutes(startMs, endMs)` answers the minutes whose
 * open time is in [startMs, endMs), or null when it has none there; the answer may be a
 * scratch object reused by the next call.
 */
export interface IntrabarDetail {
  minutes(startMs: number, endMs: number): MinuteSpan | null
}

const R_TP = EXIT_REASON_CODE.get('tp')!
const R_LIQUIDATION = EXIT_REASON_CODE.get('liquidation')!
const R_TRAILING = EXIT_REASON_CODE.get('trailing')!

/** a replay's outcome */
export const REPLAY_EXIT = 1
export const REPLAY_NO_EXIT = 0
export const REPLAY_NO_DATA = -1

/** The levels of the trade as they stand when bar k opens. */
export interface LevelsNow {
  stop: number
  stopReason: number
  liq: number
  tp: number
  /** best price so far (trailing) */
  best: number
  trailFrac: number
}

/**
 * One coin's replays: the detail source, the counts of a run (bars replayed, bars that
 * needed detail but had none) and the current trade's outcome (resolved by detail, and
 * whether that changed its exit from the bar rule's).
 */
export class IntrabarReplay {
  /** bars replayed minute by minute */
  replayed = 0
  /** bars that needed detail and had none (or minutes that disagree with the bar): the bar rule decided */
  leftToRule = 0
  /** ambiguous bars whose liquidation the mark price reached: decided by the mark bar (the store holds no mark minutes) */
  markLeftToRule = 0
  // the exit found by the last successful replay
  price = 0
  reason = 0
  timeMs = 0
  sameBar = false
  /** the current trade's exit came from a replay */
  resolved = false
  /** the current trade's exit differs from the bar rule's (reason, price or time) */
  changed = false
  /** scratch: the levels handed to `replay` */
  readonly now: LevelsNow = { stop: 0, stopReason: 0, liq: 0, tp: 0, best: 0, trailFrac: 0 }

  constructor(private readonly detail: IntrabarDetail, private readonly stepMs: number) {}

  /** Start a trade. */
  reset(): void {
    this.resolved = false
    this.changed = false
  }

  /**
   * Replay bar k (open time tMs) for a long (dir 1) or short (dir −1) position with the
   * levels as they stand at its open. The bar rule's outcome for this bar is `barExits`
   * (it would exit here at `barPrice`, reason `barReason`, at the bar's midpoint): used
   * for `changed` and, when the minutes do not reach a level the bar touched (minutes
   * that disagree with the bar), left to the rule.
   */
  replay(dir: number, tMs: number, lv: LevelsNow, barExits: boolean, barPrice: number, barReason: number): number {
    const m = this.detail.minutes(tMs, tMs + this.stepMs)
    if (m === null || m.to <= m.from) {
      this.leftToRule++
      return REPLAY_NO_DATA
    }
    const hit = dir > 0 ? this.walkLong(m, lv) : this.walkShort(m, lv)
    if (!hit) {
      if (barExits) {
        this.leftToRule++
        return REPLAY_NO_DATA
      }
      this.replayed++
      return REPLAY_NO_EXIT
    }
    this.replayed++
    this.resolved = true
    this.changed = !barExits || this.price !== barPrice || this.reason !== barReason || this.timeMs !== tMs + this.stepMs / 2
    return REPLAY_EXIT
  }

  /** Rules 1–4 on each minute (long); the trailing stop of minute j uses the best high through minute j − 1. */
  private walkLong(m: MinuteSpan, lv: LevelsNow): boolean {
    const { o, h, l, t } = m
    const liq = lv.liq
    const tp = lv.tp
    const trailFrac = lv.trailFrac
    let stop = lv.stop
    let stopReason = lv.stopReason
    let best = lv.best
    let nearest = stop > liq ? stop : liq
    for (let j = m.from; j < m.to; j++) {
      const oj = o[j], hj = h[j], lj = l[j]
      if (lj <= nearest || hj >= tp) {
        if (oj <= liq) return this.hit(oj, R_LIQUIDATION, t[j], false)
        if (oj <= stop) return this.hit(oj, stopReason, t[j], false)
        if (lj <= nearest) return this.hit(liq >= stop ? liq : stop, liq >= stop ? R_LIQUIDATION : stopReason, t[j] + MINUTE_MS / 2, hj >= tp)
        return this.hit(tp, R_TP, t[j] + MINUTE_MS / 2, false)
      }
      if (trailFrac > 0 && hj > best) {
        best = hj
        const trail = best - best * trailFrac
        if (trail > stop) {
          stop = trail
          stopReason = R_TRAILING
          nearest = stop > liq ? stop : liq
        }
      }
    }
    return false
  }

  private walkShort(m: MinuteSpan, lv: LevelsNow): boolean {
    const { o, h, l, t } = m
    const liq = lv.liq
    const tp = lv.tp
    const trailFrac = lv.trailFrac
    let stop = lv.stop
    let stopReason = lv.stopReason
    let best = lv.best
    let nearest = stop < liq ? stop : liq
    for (let j = m.from; j < m.to; j++) {
      const oj = o[j], hj = h[j], lj = l[j]
      if (hj >= nearest || lj <= tp) {
        if (oj >= liq) return this.hit(oj, R_LIQUIDATION, t[j], false)
        if (oj >= stop) return this.hit(oj, stopReason, t[j], false)
        if (hj >= nearest) return this.hit(liq <= stop ? liq : stop, liq <= stop ? R_LIQUIDATION : stopReason, t[j] + MINUTE_MS / 2, lj <= tp)
        return this.hit(tp, R_TP, t[j] + MINUTE_MS / 2, false)
      }
      if (trailFrac > 0 && lj < best) {
        best = lj
        const trail = best + best * trailFrac
        if (trail < stop) {
          stop = trail
          stopReason = R_TRAILING
          nearest = stop < liq ? stop : liq
        }
      }
    }
    return false
  }

  private hit(price: number, reason: number, timeMs: number, sameBar: boolean): true {
    this.price = price
    this.reason = reason
    this.timeMs = timeMs
    this.sameBar = sameBar
    return true
  }
}

/** A run's replay counts (summed over its coins). */
export interface IntrabarCounts {
  /** bars replayed minute by minute */
  replayed: number
  /** bars that needed detail and were resolved by the bar rule (no minutes there) */
  leftToRule: number
  /** bars where the mark price reached the liquidation price and the minutes could have reordered the exit: the mark bar decided (no mark minutes) */
  markLeftToRule?: number
}

