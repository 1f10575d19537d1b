/**
 * The registry of tasks a worker runs, by name: the one place a task's name is bound to
 * its function. The run pipeline passes the function itself (`lane.run(runCoinTrades, …)`,
 * so "go to definition" lands on it); the transport sends its name (`TaskPayload<N>` and
 * `TaskResult<N>` in ../transport.ts are its types), the worker looks it up here.
 */
import type { Task } from './context'
import { runDcaBot, runGridBot, runPackBot } from './bot-tasks'
import { runCoinTrades, runWholeRuns } from './coin-tasks'
import { runNestedRuns } from './nested-runs'
import { runBootstrap, runGridTrades, runRandomEntry, runRegimes, runTradeBootstrap } from './research-tasks'
import { runScanSignals } from './signal-tasks'
import { runCscv, runSweepTrials } from './sweep-tasks'

export const TASKS = {
  coinTrades: runCoinTrades,
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
