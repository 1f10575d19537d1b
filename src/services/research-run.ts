/**
 * Fan-out of the research tasks over the executor, chunked like coinOutcomes, and merged
 * in universe order so that the numbers do not depend on the chunking (in-process, or any
 * number of workers).
 */
import type { Executor } from './executor'
import type { GridCell, GridCoin } from './research-tasks'
import type { RunSpec } from './run-spec'

/** Interleaved chunks (big and small coins spread evenly), as SimulationService.coinOutcomes cuts them. */
export function chunksOf<T>(items: readonly T[], parallelism: number): T[][] {
  const chunks = Math.max(1, Math.min(items.length, parallelism * 2))
  const parts: T[][] = Array.from({ length: chunks }, () => [])
  items.forEach((x, i) => parts[i % chunks].push(x))
  return parts
}

/** The request seed of a result: the first 32 bits of its hash (docs/statistics.md, "Seeds"). */
export function seedOfHash(hash: string): number {
  return Number.parseInt(hash.slice(0, 8), 16) >>> 0
}

/**
 * Each simulation's summed net % over every coin's random trades (as many per coin as the
 * run took). Coins are added in the order given, so the sums are the same bit for bit
 * however the coins were chunked. NaN for a simulation when a coin with trades has no bar
 * to enter at (cannot happen for trades that came from that window).
 */
export async function randomEntryTotals(
  executor: Executor,
  spec: RunSpec,
  coins: readonly { symbol: string; trades: number }[],
  simulations: number,
  seed: number,
): Promise<Float64Array> {
  const withTrades = coins.filter(c => c.trades > 0)
  const parts = chunksOf(withTrades, executor.parallelism)
  const results = await Promise.all(parts.map(p => executor.run('randomEntry', { spec, coins: p, simulations, seed })))
  const bySymbol = new Map<string, Float64Array>()
  results.forEach((r, k) => parts[k].forEach((c, i) => bySymbol.set(c.symbol, r.sums[i])))
  const totals = new Float64Array(simulations)
  for (const c of withTrades) {
    const sums = bySymbol.get(c.symbol)!
    for (let j = 0; j < simulations; j++) totals[j] += sums[j]
  }
  return totals
}

/** Every coin's trades under every cell, coins in the order given. */
export async function gridOutcomes(executor: Executor, spec: RunSpec, symbols: string[], cells: GridCell[]): Promise<GridCoin[]> {
  const parts = chunksOf(symbols, executor.parallelism)
  const results = await Promise.all(parts.map(p => executor.run('gridTrades', { spec, symbols: p, cells })))
  const bySymbol = new Map<string, GridCoin>()
  for (const r of results) for (const c of r.coins) bySymbol.set(c.symbol, c)
  return symbols.map(s => bySymbol.get(s)!)
}
