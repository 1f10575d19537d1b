/**
 * What the API processes and the `perpsim worker` processes agree on when tasks cross Redis
 * (BullMQ): the queue's name and key prefix, a task's job data, how payloads and results
 * travel (v8 serialisation, the structured clone's byte form, as base64: BullMQ keeps job
 * data and return values as JSON, which would turn a Float64Array of packed trades into an
 * object of numbers), the refusal a worker answers for a task it must not run, and the fleet
 * registry each worker keeps its heartbeat in. docs/architecture.md "Two transports".
 */
import { createHash } from 'node:crypto'
import { deserialize, serialize } from 'node:v8'
import type { SymbolRows, SymbolRowsWithin } from '../market/candle-store'
import { SAMPLE_KINDS } from '../market/types'
import { VERSION } from '../version'
import type { ViewBounds } from './compute/store-view'
import type { Priority } from './compute/task-queue'

/** the engine a task was cut for: a worker of another release refuses it (its results could differ) */
export const QUEUE_ENGINE_VERSION = `perpsim-engine-${VERSION}`

/** the BullMQ queue every chunk task goes through */
export const QUEUE_NAME = 'runs'

/** BullMQ priorities (lower runs first): a request's tasks before a scheduled job's, as on the pool */
export const PRIORITY_OF: Record<Priority, number> = { interactive: 1, background: 10 }

/**
 * One coin a task reads, as the API's store held it when the task was cut: its last candle
 * and funding times, each kind of derivatives samples' last time (SAMPLE_KINDS order; -1:
 * none) and the digest of its rows up to them (market/symbol-digest.ts).
 */
export type SymbolRead = [symbol: string, lastBarMs: number, lastFundingMs: number, digest: string, lastSampleMs: number[]]

/** A coin as a task reads it; a coin the API's store lacks reads as none (-1, -1, ''). */
export const symbolRead = (symbol: string, rows: SymbolRows | null): SymbolRead =>
  rows ? [symbol, rows.lastBarMs, rows.lastFundingMs, rows.digest, rows.lastSampleMs] : [symbol, -1, -1, '', SAMPLE_KINDS.map(() => -1)]

/** a read's sample times (a read without them, of an older release, reads none) */
const samplesOf = (read: SymbolRead): number[] => read[4] ?? SAMPLE_KINDS.map(() => -1)

/** A task as a job: its payload's bytes and the versions it was cut for. */
export interface TaskJobData {
  /** base64 of v8.serialize(payload) */
  payload: string
  /** every coin the task reads (compute/task-reads.ts), sorted by symbol */
  reads: SymbolRead[]
  /** one digest of `reads` (readsVersion): how messages and the fleet check name them together */
  dataVersion: string
  engineVersion: string
  priority: Priority
  /** the run service's affinity hint: a worker runs tasks with the same number on the same thread of its pool (its signal masks stay cached) */
  affinity?: number
  /** the workers that refused it so far, with their reasons (it fails once every live worker has) */
  refusals?: Record<string, string>
}

/** The data version of a task: one digest (16 hex) of the coins it reads and their rows' digests. */
export function readsVersion(reads: readonly SymbolRead[]): string {
  const h = createHash('sha256')
  for (const r of reads) h.update(`${r.join(':')};`)
  return h.digest('hex').slice(0, 16)
}

export const encode = (value: unknown): string => Buffer.from(serialize(value)).toString('base64')
export const decode = (text: string): unknown => deserialize(Buffer.from(text, 'base64'))

/** Why a worker will not run a task: the message starts with this, so the API can tell it from a task's own failure. */
export const REFUSED = 'refused by worker'

/** An hour as messages name it: 2026-11-19T23:00Z. */
const hourOf = (ms: number) => (ms < 0 ? 'nothing' : `${new Date(ms).toISOString().slice(0, 16)}Z`)

/** at most this many coins are named in one refusal, then "and N more" */
const NAMED = 3

function listed(parts: string[]): string {
  return parts.length > NAMED ? `${parts.slice(0, NAMED).join('; ')}; and ${parts.length - NAMED} more coins` : parts.join('; ')
}

/** What a coin of the task finds in a store: why it differs, or null when the store holds the same rows (and maybe more). */
function coinDiffers(read: SymbolRead, rows: SymbolRowsWithin | null): string | null {
  const [symbol, bar, funding, digest] = read
  if (!rows) return `its store has no ${symbol}`
  if (rows.lastBarMs !== bar) return `its store has ${symbol} up to ${hourOf(rows.lastBarMs)}, the task reads it up to ${hourOf(bar)}`
  if (rows.lastFundingMs !== funding) return `its store has ${symbol}'s funding up to ${hourOf(rows.lastFundingMs)}, the task reads it up to ${hourOf(funding)}`
  const samples = samplesOf(read)
  for (const [k, kind] of SAMPLE_KINDS.entries())
    if (rows.lastSampleMs[k] !== samples[k]) return `its store has ${symbol}'s ${kind} up to ${hourOf(rows.lastSampleMs[k])}, the task reads it up to ${hourOf(samples[k])}`
  if (rows.digest !== digest) return `its ${symbol} rows up to ${hourOf(bar)} differ (digest ${rows.digest}, the task reads ${digest})`
  return null
}

/**
 * Whether a worker may run a task: a refusal naming why (another release, a coin its store
 * lacks or holds other rows of), or how many candle and funding rows of each coin the task
 * may see (the API's counts), so the task reads exactly what it was cut for even where the
 * worker's store reaches further, now or by the time a pool thread runs it (the hourly feed
 * may append in between).
 */
export function acceptance(
  task: Pick<TaskJobData, 'reads' | 'engineVersion'>,
  mine: { name: string; engineVersion: string; rowsWithin(symbol: string, lastBarMs: number, lastFundingMs: number, lastSampleMs: readonly number[]): SymbolRowsWithin | null },
): { refusal: string } | { rows: ViewBounds } {
  if (task.engineVersion !== mine.engineVersion)
    return { refusal: `${REFUSED} ${mine.name}: engine ${mine.engineVersion}, the task was cut for ${task.engineVersion} (run the same perpsim release on every host)` }
  if (!Array.isArray(task.reads)) return { refusal: `${REFUSED} ${mine.name}: the task names no coins it reads (cut by another release)` }
  const differs: string[] = []
  const rows: ViewBounds = {}
  for (const read of task.reads) {
    const held = mine.rowsWithin(read[0], read[1], read[2], samplesOf(read))
    if (read[1] < 0) {
      // the API's store had no candles of it: the task must find none here either
      rows[read[0]] = [0, 0, ...SAMPLE_KINDS.map(() => 0)]
      continue
    }
    const why = coinDiffers(read, held)
    if (why) differs.push(why)
    else if (held) rows[read[0]] = held.rows
  }
  if (differs.length) return { refusal: `${REFUSED} ${mine.name}: ${listed(differs)} (keep the same store on every host: data sync, then restart the worker)` }
  return { rows }
}

/**
 * Whether a worker, as its fleet entry shows it, can take a task: null when it can (or may:
 * a store that reaches further is checked by the worker itself), else why not.
 */
export function fleetMismatch(entry: FleetEntry, task: Pick<TaskJobData, 'reads' | 'engineVersion'>): string | null {
  if (entry.engineVersion !== task.engineVersion) return `engine ${entry.engineVersion}`
  const differs: string[] = []
  for (const read of task.reads) {
    const [symbol, bar, funding, digest] = read
    if (bar < 0) continue
    const held = entry.coins?.[symbol]
    if (!held) {
      differs.push(`no ${symbol}`)
      continue
    }
    const [wBar, wFunding, wDigest, wSamples = ''] = held.split(':')
    const mine = [Number(wBar), Number(wFunding), ...SAMPLE_KINDS.map((_, k) => Number(wSamples.split(',')[k] ?? -1))]
    const theirs = [bar, funding, ...samplesOf(read)]
    if (mine.every((t, i) => t === theirs[i])) {
      if (wDigest !== digest) differs.push(`other ${symbol} rows up to ${hourOf(bar)}`)
    } else if (mine.some((t, i) => t < theirs[i])) differs.push(`${symbol} only up to ${hourOf(Math.min(mine[0], bar))}`)
  }
  return differs.length ? listed(differs) : null
}

/** One worker process as it announces itself in the fleet registry (a Redis hash, field = worker name). */
export interface FleetEntry {
  name: string
  /** tasks it runs at once (its pool's threads) */
  slots: number
  /** its whole store's data version (CandleStore.dataVersion) */
  dataVersion: string
  engineVersion: string
  /** each coin of its store: `lastBarMs:lastFundingMs:digest:lastSampleMs,…` of all its rows (fleetCoins) */
  coins: Record<string, string>
  /** its last heartbeat, ms since the epoch on its clock */
  seenMs: number
}

/** how often a worker renews its fleet entry, and how old an entry may be before the worker counts as gone */
export const HEARTBEAT_MS = 2_000
export const FLEET_STALE_MS = 10_000

export const fleetKey = (prefix: string) => `${prefix}:fleet`

/** A store's coins as a fleet entry shows them. */
export function fleetCoins(store: { symbols(): string[]; symbolRows(symbol: string): SymbolRows | null }): Record<string, string> {
  const out: Record<string, string> = {}
  for (const s of store.symbols()) {
    const rows = store.symbolRows(s)
    if (rows) out[s] = `${rows.lastBarMs}:${rows.lastFundingMs}:${rows.digest}:${rows.lastSampleMs.join(',')}`
  }
  return out
}

export { redisClient } from '../redis-client'
