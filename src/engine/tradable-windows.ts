/**
 * A point-in-time universe's membership on one coin's bars (docs/metrics.md §1, "Universe
 * membership"): the coin may open a trade only while it is in the run's top-N set. The
 * run pipeline (src/runs/universe-plan.ts) turns the set's rebalances into each coin's
 * intervals [fromMs, toMs) of membership; here they become an entry mask. An entry is
 * taken at the bar after the signal, so a signal at bar i counts when bar i+1's open
 * (t[i] + stepMs) lies inside an interval. Only entries are masked: a trade opened while
 * the coin was in the set is kept until it exits, even after the coin has left it.
 */
import type { Bars } from '../market/types'
import { lowerBound } from '../sorted-search'

/**
 * A new mask: `entry` with every signal cleared whose entry instant falls outside the
 * intervals, given as [from, to, from, to, …] in ms (ascending, not overlapping, `to`
 * exclusive); none (an empty or missing list) clears every signal.
 */
export function maskOutsideWindows(entry: Uint8Array, bars: Bars, intervals: ArrayLike<number> | undefined): Uint8Array {
  const out = new Uint8Array(entry.length)
  const step = bars.stepMs
  if (!intervals) return out
  for (let w = 0; w + 1 < intervals.length; w += 2) {
    // signal bar i enters at t[i] + step: in [from, to) when t[i] ∈ [from − step, to − step)
    const lo = lowerBound(bars.t, intervals[w] - step, bars.n)
    const hi = lowerBound(bars.t, intervals[w + 1] - step, bars.n)
    out.set(entry.subarray(lo, hi), lo)
  }
  return out
}

/**
 * The signal bars of `list` (a mask's, ascending: engine/trade-model.ts signalBars) that
 * maskOutsideWindows keeps, so a limited coin reads its entries from a list too: the list
 * of the mask it returns.
 */
export function barsInsideWindows(list: Int32Array, bars: Bars, intervals: ArrayLike<number> | undefined): Int32Array {
  if (!intervals) return new Int32Array(0)
  const step = bars.stepMs
  const kept: number[] = []
  let k = 0
  for (let w = 0; w + 1 < intervals.length; w += 2) {
    const lo = lowerBound(bars.t, intervals[w] - step, bars.n)
    const hi = lowerBound(bars.t, intervals[w + 1] - step, bars.n)
    while (k < list.length && list[k] < lo) k++
    while (k < list.length && list[k] < hi) kept.push(list[k++])
  }
  return Int32Array.from(kept)
}

/**
 * The membership intervals of a task's coins in two flat arrays, in the order of its coins:
 * coin k's [from, to, …] (ms) are ms[at[k]] … ms[at[k + 1] − 1], none where the coin was
 * never in the set. A record of a few hundred small arrays costs a message between threads
 * ten times what two typed arrays do.
 */
export interface Memberships {
  at: Int32Array
  ms: Float64Array
}

/** `symbols`' intervals in `tradable` (per coin, as runs/universe-plan.ts makes them) as Memberships. */
export function membershipsOf(symbols: readonly string[], tradable: Readonly<Record<string, readonly number[]>>): Memberships {
  const at = new Int32Array(symbols.length + 1)
  symbols.forEach((s, k) => (at[k + 1] = at[k] + (tradable[s]?.length ?? 0)))
  const ms = new Float64Array(at[symbols.length])
  symbols.forEach((s, k) => {
    const w = tradable[s]
    if (w) ms.set(w, at[k])
  })
  return { at, ms }
}

/** Coin k's intervals of `m` (a view, no copy). */
export function membershipAt(m: Memberships, k: number): Float64Array {
  return m.ms.subarray(m.at[k], m.at[k + 1])
}
