/**
 * A point-in-time run's twin: the same run on today's universe, whose four headline
 * figures make the survivorship block's `current_universe_result`. The run's coin tasks
 * and `twinRows` make its rows (coin-tasks.ts ChunkTwin, runTwinRows); `twinFigures` takes
 * the twin's portfolio choice over all of them (engine/run.ts headlineFigures: no marks, no
 * booking) on a worker, while the main thread books the run.
 */
import type { AcceptInput, PortfolioOptions } from '../../engine/portfolio'
import { headlineFigures, type HeadlineFigures } from '../../engine/run'
import type { TwinRows } from './coin-tasks'
import type { TaskContext } from './context'

export interface TwinFiguresPayload {
  /** the twin's coins in today's universe order */
  twin: string[]
  /** every chunk's rows (CoinTradesResult.twin) */
  parts: TwinRows[]
  opts: PortfolioOptions
}

/** The twin's four survivorship figures from its chunks' rows. */
export function runTwinFigures(_ctx: TaskContext, payload: TwinFiguresPayload): HeadlineFigures {
  return headlineFigures(joinTwinRows(payload.twin, payload.parts), payload.opts)
}

/**
 * The chunks' rows as one table in the twin's coin order (a coin without rows has none):
 * coin by coin, in time order within a coin, the order the portfolio breaks ties of entry
 * time by, as in the run.
 */
export function joinTwinRows(twin: readonly string[], parts: readonly TwinRows[]): AcceptInput {
  const at = new Map<string, { part: TwinRows; k: number }>()
  for (const part of parts) part.symbols.forEach((s, k) => at.set(s, { part, k }))
  let n = 0
  for (const part of parts) n += part.start[part.symbols.length]
  const out = { n, entryMs: new Float64Array(n), exitMs: new Float64Array(n), pnlPct: new Float64Array(n) }
  let to = 0
  for (const s of twin) {
    const o = at.get(s)
    if (!o) continue
    const from = o.part.start[o.k]
    const end = o.part.start[o.k + 1]
    out.entryMs.set(o.part.entryMs.subarray(from, end), to)
    out.exitMs.set(o.part.exitMs.subarray(from, end), to)
    out.pnlPct.set(o.part.pnlPct.subarray(from, end), to)
    to += end - from
  }
  return out
}
