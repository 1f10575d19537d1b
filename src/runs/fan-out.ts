/**
 * How a run's coins are cut into chunks over the workers, and the fan-out of the
 * research tasks by the same cut, merged in universe order so that the numbers do not
 * depend on the chunking (in-process, or any number of workers).
 */
import type { Trade } from '../engine/types'
import { runGridTrades, runRandomEntry, type GridCell, type GridTradesPayload as TaskPayloadOf, type RandomEntryPayload } from './compute/research-tasks'
import { unpackTrades } from './compute/trade-codec'
import type { RunSpec } from './spec'
import type { Lane } from './transport'

/** Chunks of a run's coins on `lane` (RunService cuts its coins so too). */
export function chunkCount(nSymbols: number, lane: Pick<Lane, 'parallelism' | 'chunksPerWorker'>): number {
  // Transport.chunksPerWorker per worker (two where a worker takes any task: a faster one takes
  // more); a small run is not worth more messages than coins / 4
  return Math.max(1, Math.min(lane.parallelism * (lane.chunksPerWorker ?? 2), Math.ceil(nSymbols / 4)))
}

/**
 * Items of a run's coins grouped by the chunk RunService put their coin in (universe
 * index modulo the chunk count), with that chunk as the worker affinity, so each coin
 * runs where its signals are cached. Empty chunks are left out.
 */
export function chunksByIndex<T extends { index: number }>(items: readonly T[], nSymbols: number, lane: Pick<Lane, 'parallelism' | 'chunksPerWorker'>): { affinity: number; items: T[] }[] {
  const chunks = chunkCount(nSymbols, lane)
  const parts: T[][] = Array.from({ length: chunks }, () => [])
  for (const x of items) parts[x.index % chunks].push(x)
  return parts.map((p, affinity) => ({ affinity, items: p })).filter(p => p.items.length > 0)
}

/**
 * Each simulation's summed net % over the coins' random trades (as many per coin as the
 * run took). Coins are added in the order given, so the sums are the same bit for bit
 * however the coins were chunked.
 */
export async function randomEntryTotals(
  lane: Lane,
  spec: RunSpec,
  /** `index`: the coin's position in the run's symbols */
  coins: readonly { symbol: string; index: number; trades: number }[],
  nSymbols: number,
  simulations: number,
  seed: number,
  /** a point-in-time run's membership intervals (its random entries only while a coin is in the set) */
  tradable?: Record<string, number[]>,
): Promise<Float64Array> {
  const withTrades = coins.filter(c => c.trades > 0)
  const parts = chunksByIndex(withTrades, nSymbols, lane)
  const payloadOf = (items: readonly { symbol: string; trades: number }[]): RandomEntryPayload => {
    const payload: RandomEntryPayload = { spec, coins: items.map(c => ({ symbol: c.symbol, trades: c.trades })), simulations, seed }
    if (tradable) payload.tradable = Object.fromEntries(items.map(c => [c.symbol, tradable[c.symbol] ?? []]))
    return payload
  }
  const results = await Promise.all(parts.map(p => lane.run(runRandomEntry, payloadOf(p.items), p.affinity)))
  const bySymbol = new Map<string, Float64Array>()
  results.forEach((r, k) => parts[k].items.forEach((c, i) => bySymbol.set(c.symbol, r.sums[i])))
  const totals = new Float64Array(simulations)
  for (const c of withTrades) {
    const sums = bySymbol.get(c.symbol)!
    for (let j = 0; j < simulations; j++) totals[j] += sums[j]
  }
  return totals
}

/** A coin's trades under every cell of the grid. */
export interface GridCoinTrades {
  symbol: string
  inWindow: boolean
  fromMs: number | null
  toMs: number | null
  cells: Trade[][]
}

/** Every coin's trades under every cell, coins in the order given (the run's symbols). */
export async function gridOutcomes(
  lane: Lane,
  spec: RunSpec,
  symbols: string[],
  cells: GridCell[],
  universe: { tradable?: Record<string, number[]>; delisted?: string[] } = {},
): Promise<GridCoinTrades[]> {
  const parts = chunksByIndex(symbols.map((symbol, index) => ({ symbol, index })), symbols.length, lane)
  const payloadOf = (chunk: string[]) => {
    const payload: TaskPayloadOf = { spec, symbols: chunk, cells }
    if (universe.tradable) payload.tradable = Object.fromEntries(chunk.map(s => [s, universe.tradable![s] ?? []]))
    const delisted = universe.delisted?.filter(s => chunk.includes(s)) ?? []
    if (delisted.length) payload.delisted = delisted
    return payload
  }
  const results = await Promise.all(parts.map(p => lane.run(runGridTrades, payloadOf(p.items.map(x => x.symbol)), p.affinity)))
  const bySymbol = new Map<string, GridCoinTrades>()
  for (const r of results) for (const { cells: packed, ...c } of r.coins) bySymbol.set(c.symbol, { ...c, cells: packed.map(unpackTrades) })
  return symbols.map(s => bySymbol.get(s)!)
}
