/**
 * A walk-forward run's out-of-sample parts joined into one run (RunService.stitchedRun):
 * each fold's coin-grouped trade table, joined coin by coin in fold order, and the hash
 * that names the joined run.
 */
import { createHash } from 'node:crypto'
import { canonicalJsonLikeStringify } from '../engine/canonical-json'
import { mergeCoinTables, type TradeTable } from '../engine/trade-table'
import type { Direction } from '../engine/types'
import type { RunSpec } from './spec'

/**
 * The folds' tables (each over `symbols`, coin by coin) as one table over `symbols`, each
 * coin's trades fold after fold. mergeCoinTables does the copying (every column and the
 * marks): each fold's coins are given names of their own (coin u of fold k is the
 * u·F + k-th), so each is one block, and the blocks land coin by coin, then fold by fold.
 */
export function concatFoldTables(symbols: readonly string[], direction: Direction, folds: readonly TradeTable[]): TradeTable {
  const F = folds.length
  const name = (s: string, k: number) => `${s}\u0000${k}`
  const expanded = symbols.flatMap(s => folds.map((_, k) => name(s, k)))
  const parts = folds.map((t, k) => ({ ...t, symbols: t.symbols.map(s => name(s, k)) }))
  const merged = mergeCoinTables(expanded, direction, parts)
  const coin = new Int32Array(merged.n)
  for (let i = 0; i < merged.n; i++) coin[i] = Math.floor(merged.coin[i] / Math.max(1, F))
  return { ...merged, coin: coin as TradeTable['coin'], symbols: [...symbols] }
}

/** The joined run's hash: its folds' specs and the data version (not a result_hash of any one request). */
export function foldsHash(folds: readonly RunSpec[], dataVersion: string): string {
  return createHash('sha256').update('walk-forward\n').update(canonicalJsonLikeStringify(folds)).update('\n').update(dataVersion).digest('hex')
}
