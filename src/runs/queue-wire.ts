/**
 * What the API processes and the `perpsim worker` processes agree on when tasks cross Redis
 * (BullMQ): the queue's name and key prefix, a task's job data, how payloads and results
 * travel (v8 serialisation, the structured clone's byte form, as base64: BullMQ keeps job
 * data and return values as JSON, which would turn a Float64Array of packed trades into an
 * object of numbers), the refusal a worker answers for a task it must not run, and the fleet
 * registry each worker keeps its heartbeat in. docs/architecture.md "Two transports".
 */
import { deserialize, serialize } from 'node:v8'
import { VERSION } from '../version'
import type { Priority } from './compute/task-queue'

/** the engine a task was cut for: a worker of another release refuses it (its results could differ) */
export const QUEUE_ENGINE_VERSION = `perpsim-engine-${VERSION}`

/** the BullMQ queue every chunk task goes through */
export const QUEUE_NAME = 'runs'

/** BullMQ priorities (lower runs first): a request's tasks before a scheduled job's, as on the pool */
export const PRIORITY_OF: Record<Priority, number> = { interactive: 1, background: 10 }

/** A task as a job: its payload's bytes and the versions it was cut for. */
export interface TaskJobData {
  /** base64 of v8.serialize(payload) */
  payload: string
  /** the store's data version the API read when it cut the task (CandleStore.dataVersion) */
  dataVersion: string
  engineVersion: string
  priority: Priority
}

export const encode = (value: unknown): string => Buffer.from(serialize(value)).toString('base64')
export const decode = (text: string): unknown => deserialize(Buffer.from(text, 'base64'))

/** Why a worker will not run a task: the message starts with this, so the API can tell it from a task's own failure. */
export const REFUSED = 'refused by worker'

/** The refusal (null: the worker may run it) of a task cut for `task` by a worker holding `mine`. */
export function refusalOf(task: { dataVersion: string; engineVersion: string }, mine: { dataVersion: string; engineVersion: string; name: string }): string | null {
  if (task.engineVersion !== mine.engineVersion)
    return `${REFUSED} ${mine.name}: engine ${mine.engineVersion}, the task was cut for ${task.engineVersion} (run the same perpsim release on every host)`
  if (task.dataVersion !== mine.dataVersion)
    return `${REFUSED} ${mine.name}: its store has data version ${mine.dataVersion}, the task reads ${task.dataVersion} (keep the same store on every host: data sync, then restart the worker)`
  return null
}

/** One worker process as it announces itself in the fleet registry (a Redis hash, field = worker name). */
export interface FleetEntry {
  name: string
  /** tasks it runs at once (its pool's threads) */
  slots: number
  dataVersion: string
  engineVersion: string
  /** its last heartbeat, ms since the epoch on its clock */
  seenMs: number
}

/** how often a worker renews its fleet entry, and how old an entry may be before the worker counts as gone */
export const HEARTBEAT_MS = 2_000
export const FLEET_STALE_MS = 10_000

export const fleetKey = (prefix: string) => `${prefix}:fleet`

export { redisClient } from '../redis-client'
