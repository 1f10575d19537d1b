/**
 * How a sweep's trials go to the workers: in short tasks (a few trials each, through
 * RunService.sweepTrials in the background lane), trials that share an entry rule side by
 * side so a task computes their signals once, a few tasks in flight at a time, and no new
 * task once the run is cancelled (the ones in flight finish and are kept).
 */
import type { SweepTrialOutcome } from '../../runs/compute/sweep-tasks'
import type { RunService } from '../../runs/service'
import type { RunSpec } from '../../runs/spec'
import { yieldToLoop } from '../../runs/yield'
import { entryKeyOf } from './plan'

/**
 * Coin-years of bars one task books at most: a trial over 100 coins × 2 years (200) is a
 * task of its own (10–50 ms idle), so a request's task waits at most that long for a
 * worker busy with a sweep; small universes batch several trials into a task.
 */
const TASK_COIN_YEARS = 200
/** tasks in flight per worker */
const IN_FLIGHT_PER_WORKER = 2

export interface FinishedTrial {
  /** the trial's index in the plan */
  index: number
  outcome: SweepTrialOutcome
}

/** Trials per task for runs over `coins` coins and `days` days each (at least 1, at most 16). */
export function trialsPerTask(coins: number, days: number): number {
  const coinYears = Math.max(1e-9, (coins * days) / 365)
  return Math.max(1, Math.min(16, Math.floor(TASK_COIN_YEARS / coinYears)))
}

/**
 * Run `specs` (over `symbols`), calling `onFinished` with each task's trials as it ends (one
 * call at a time, in the order tasks end). Stops sending tasks once `signal` is aborted.
 */
export async function runTrials(
  runs: RunService,
  specs: readonly RunSpec[],
  symbols: string[],
  opts: { signal: AbortSignal; perTask: number; parallelism: number },
  onFinished: (trials: FinishedTrial[]) => Promise<void>,
): Promise<void> {
  const keys = specs.map(entryKeyOf)
  const order = specs.map((_, i) => i)
  // trials that share an entry rule side by side (stable: plan order inside a group, groups by first appearance)
  const firstOf = new Map<string, number>()
  keys.forEach((k, i) => {
    if (!firstOf.has(k)) firstOf.set(k, i)
  })
  order.sort((a, b) => firstOf.get(keys[a])! - firstOf.get(keys[b])! || a - b)
  const chunks: number[][] = []
  for (let i = 0; i < order.length; ) {
    const chunk = [order[i++]]
    while (i < order.length && chunk.length < opts.perTask && keys[order[i]] === keys[chunk[0]]) chunk.push(order[i++])
    chunks.push(chunk)
  }
  // a group's tasks on one worker, where its masks are cached, when there are groups enough to
  // keep every worker busy; else (an exit-only space: one group) task by task over the workers
  const groupOf = new Map([...firstOf.keys()].map((k, g) => [k, g]))
  const affinityOf = (k: number) => (groupOf.size >= opts.parallelism ? groupOf.get(keys[chunks[k][0]])! : k)
  let next = 0
  let failure: unknown = null
  let recording = Promise.resolve()
  const width = Math.max(1, opts.parallelism * IN_FLIGHT_PER_WORKER)
  const lane = async () => {
    while (next < chunks.length && !opts.signal.aborted && failure === null) {
      // a turn of the event loop between tasks: requests (a DELETE among them) are served
      // between a sweep's tasks even where tasks run on this thread (tests, tools)
      await yieldToLoop()
      if (opts.signal.aborted || failure !== null || next >= chunks.length) break
      const k = next++
      const chunk = chunks[k]
      try {
        const outcomes = await runs.sweepTrials(
          chunk.map(i => specs[i]),
          symbols,
          { affinity: affinityOf(k) },
        )
        recording = recording.then(() => onFinished(chunk.map((index, j) => ({ index, outcome: outcomes[j] }))))
        await recording
      } catch (e) {
        failure ??= e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, chunks.length) }, lane))
  await recording
  if (failure !== null) throw failure
}
