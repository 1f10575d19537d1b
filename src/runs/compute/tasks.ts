/**
 * The registry of tasks a worker runs, by name: the one place a task's name is bound to
 * its function. The run pipeline passes the function itself (`lane.run(runCoinTrades, …)`,
 * so "go to definition" lands on it); the transport sends its name (`TaskPayload<N>` and
 * `TaskResult<N>` in ../transport.ts are its types), the worker looks it up here.
 */
import type { Task } from './context'
import { runDcaBot, runGridBot, runPackBot } from './bot-tasks'
import { runCoinTrades, runTwinRows, runWholeRuns, type CoinTradesResult, type KnownRows, type TwinRows, type TwinRowsPayload } from './coin-tasks'
import { runTwinFigures, type TwinFiguresPayload } from './twin-tasks'
import { TRADE_COLUMNS, type TradeTable } from '../../engine/trade-table'
import { runNestedRuns } from './nested-runs'
import { runBootstrap, runGridTrades, runRandomEntry, runRegimes, runTradeBootstrap } from './research-tasks'
import { runScanSignals } from './signal-tasks'
import { runCscv, runSweepTrials } from './sweep-tasks'

export const TASKS = {
  coinTrades: runCoinTrades,
  twinRows: runTwinRows,
  twinFigures: runTwinFigures,
  wholeRuns: runWholeRuns,
  nestedRuns: runNestedRuns,
  randomEntry: runRandomEntry,
  gridTrades: runGridTrades,
  bootstrap: runBootstrap,
  tradeBootstrap: runTradeBootstrap,
  regimes: runRegimes,
  scanSignals: runScanSignals,
  dcaBot: runDcaBot,
  gridBot: runGridBot,
  packBot: runPackBot,
  sweepTrials: runSweepTrials,
  cscv: runCscv,
} as const

export type TaskName = keyof typeof TASKS

const NAME_OF = new Map<unknown, TaskName>(Object.entries(TASKS).map(([name, fn]) => [fn, name as TaskName]))

/** The registered name of a task function (throws for a function not in TASKS). */
export function taskName<P, R>(task: Task<P, R>): TaskName {
  const name = NAME_OF.get(task)
  if (!name) throw new Error('not a registered task (src/runs/compute/tasks.ts)')
  return name
}

/** The task registered under `name`, for the worker (its payload arrives untyped in a message). */
export function taskNamed(name: string): Task<unknown, unknown> | undefined {
  return (TASKS as unknown as Record<string, Task<unknown, unknown>>)[name]
}

/** The buffers of a trade table's columns and marks (each array its own buffer, as TradeTableBuilder.finish makes them). */
function tableBuffers(t: TradeTable | undefined, out: Set<ArrayBuffer>): void {
  if (!t) return
  for (const k of TRADE_COLUMNS) out.add((t[k] as Float64Array).buffer as ArrayBuffer)
  if (t.marks) {
    out.add(t.marks.start.buffer as ArrayBuffer)
    out.add(t.marks.move.buffer as ArrayBuffer)
  }
}

/** The buffers of a point-in-time twin's rows (with their bar indices where they have them). */
function twinBuffers(r: TwinRows | KnownRows | undefined, out: Set<ArrayBuffer>): void {
  if (!r) return
  for (const a of [r.start, r.entryMs, r.exitMs, r.pnlPct]) out.add(a.buffer as ArrayBuffer)
  if ('entryIdx' in r) for (const a of [r.entryIdx, r.exitIdx]) out.add(a.buffer as ArrayBuffer)
}

/**
 * What a task's result hands over to the other thread instead of copying: the buffers of
 * the trade tables a chunk of a run made (megabytes for a 535-coin run) and its twin's rows, which the worker
 * allocated for this answer alone and never reads again. Other tasks' results are copied:
 * they may hold arrays the worker keeps (a cache).
 */
export function transferablesOf(name: string, result: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>()
  if (name === 'coinTrades') {
    const r = result as CoinTradesResult
    tableBuffers(r.trades, out)
    tableBuffers(r.intrabar?.barTrades, out)
    twinBuffers(r.twin?.rows, out)
    twinBuffers(r.twin?.known, out)
  }
  if (name === 'twinRows') twinBuffers(result as TwinRows, out)
  return [...out].filter(b => b instanceof ArrayBuffer && b.byteLength > 0)
}

/**
 * What a task's payload hands over to the worker instead of copying: a point-in-time twin's
 * rows (twinRows, twinFigures), which came from the run's tasks for this task alone (RunService
 * reads them no more). Other payloads are copied: the main thread keeps what they hold.
 */
export function payloadTransferablesOf(name: string, payload: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>()
  if (name === 'twinRows') twinBuffers((payload as TwinRowsPayload).known, out)
  if (name === 'twinFigures') for (const r of (payload as TwinFiguresPayload).parts) twinBuffers(r, out)
  return [...out].filter(b => b instanceof ArrayBuffer && b.byteLength > 0)
}
