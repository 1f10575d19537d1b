/**
 * Who runs a claimed job slot, and whether that runner is gone.
 *
 * Every Scheduler has an owner identity (host name, pid, an instance id made at
 * construction) written into the job_runs rows it claims, and while a run is in progress
 * its row's `heartbeat_ms` is refreshed on the injected clock every HEARTBEAT_MS. An
 * unfinished row is abandoned (its process died mid-run: SIGKILL, OOM, power loss) when:
 *   - its owner is this process: the instance is not a live Scheduler of this process (the
 *     pid was reused by a restart, as pid 1 is in every container start). A live instance's
 *     own runs always finish their row, so in-process knowledge is exact, whatever the clock;
 *   - its owner is another pid on this host and that pid does not exist (ESRCH): known at
 *     once, so a restart a few seconds after a kill re-runs the slot at start-up;
 *   - otherwise (another host, or a pid that exists, perhaps reused by an unrelated process)
 *     when its heartbeat is older than LEASE_MS: the one test that holds everywhere;
 *   - rows written before owners existed (no heartbeat): when older than STALE_RUN_MS.
 * Why a heartbeat on a timer and not only at ctx.yield(): a run may wait minutes on one step
 * (the candle sync over the network, an SMTP server, a full worker queue) without yielding;
 * the timer beats whenever the event loop is free, which is exactly while the process
 * lives and is not frozen. The lease is three missed beats, so a busy SQLite (the write
 * waits up to busy_timeout, 5 s) or a slow step never loses a live run's slot. Processes
 * sharing one SQLite file share one machine's clock; API nodes sharing a Postgres database
 * on several hosts compare each other's heartbeats with their own clocks, so their clocks
 * must agree to well under the lease (3 min; NTP keeps them within milliseconds:
 * docs/operations.md says so).
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { RunOwner } from '../records/job-runs'

/** a running run's row is refreshed this often (injected-clock time, and a timer of this period) */
export const HEARTBEAT_MS = 60_000
/** an unfinished row whose heartbeat is older than this belongs to a dead runner */
export const LEASE_MS = 3 * HEARTBEAT_MS
/** an unfinished row without heartbeat (written before migration 0009) is dead after this */
export const STALE_RUN_MS = 6 * 60 * 60 * 1000

/** the instance ids of this process's Schedulers that have not stopped */
const liveInstances = new Set<string>()

/** A new owner identity for a Scheduler of this process, live until retireOwner(). */
export function newOwner(): RunOwner {
  const owner = { host: hostname(), pid: process.pid, instance: randomUUID() }
  liveInstances.add(owner.instance)
  return owner
}

/** The Scheduler stopped after its runs finished: rows still naming it are abandoned. */
export function retireOwner(owner: RunOwner): void {
  liveInstances.delete(owner.instance)
}

export interface OwnedRow {
  startedAtMs: number
  ownerHost: string | null
  ownerPid: number | null
  ownerInstance: string | null
  heartbeatMs: number | null
}

/** Is an unfinished row's runner gone (see the module comment), as seen by `me` at `nowMs`? */
export function isAbandoned(row: OwnedRow, nowMs: number, me: RunOwner): boolean {
  if (row.heartbeatMs === null || row.ownerHost === null || row.ownerPid === null) return row.startedAtMs < nowMs - STALE_RUN_MS
  if (row.ownerHost === me.host && row.ownerPid === me.pid) return row.ownerInstance === null || !liveInstances.has(row.ownerInstance)
  if (row.ownerHost === me.host && !pidExists(row.ownerPid)) return true
  return row.heartbeatMs < nowMs - LEASE_MS
}

/** When an unfinished row will count as abandoned if nothing refreshes it (clock ms). */
export function abandonedAfterMs(row: OwnedRow): number {
  return row.heartbeatMs === null ? row.startedAtMs + STALE_RUN_MS + 1 : row.heartbeatMs + LEASE_MS + 1
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the pid exists but belongs to another user
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
