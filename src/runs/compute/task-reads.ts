/**
 * Which coins of the store a task reads, by its registered name: what a queued task's data
 * version covers (src/runs/queue-transport.ts), so a worker whose store differs only in
 * coins the task does not read still takes it. Every task must say (the map is checked
 * against the registry by its type): a new task that reads the store names its coins here,
 * or a worker on a store that differs in them would run it and answer other figures.
 */
import { BENCHMARK_SYMBOL } from '../../engine/regime-split'
import type { TASKS, TaskName } from './tasks'

type PayloadOf<N extends TaskName> = Parameters<(typeof TASKS)[N]>[1]

const READS: { [N in TaskName]: (payload: PayloadOf<N>) => readonly string[] } = {
  coinTrades: p => p.symbols,
  // a point-in-time run's twin: today's coins its chunk limited or never held
  twinRows: p => p.symbols,
  // the twin's figures from the rows the payload carries: no store at all
  twinFigures: () => [],
  wholeRuns: p => p.symbols,
  nestedRuns: p => (p.ownGroups ? p.ownGroups.flatMap(g => g.symbols) : p.symbols),
  gridTrades: p => p.symbols,
  randomEntry: p => p.coins.map(c => c.symbol),
  // the regime split reads the benchmark's bars, whatever the run's coins
  regimes: () => [BENCHMARK_SYMBOL],
  // the bootstraps resample figures the payload carries: no store at all
  bootstrap: () => [],
  tradeBootstrap: () => [],
  scanSignals: p => p.symbols,
  dcaBot: p => [p.symbol],
  gridBot: p => [p.symbol],
  packBot: p => p.cfg.coins,
  sweepTrials: p => p.symbols,
  // the overfitting test's splits of figures the payload carries
  cscv: () => [],
}

/** The symbols task `name` reads with `payload`, each once, sorted. */
export function taskReads<N extends TaskName>(name: N, payload: PayloadOf<N>): string[] {
  return [...new Set((READS[name] as (p: PayloadOf<N>) => readonly string[])(payload))].sort()
}
