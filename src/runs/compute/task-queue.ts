/**
 * The worker pool's waiting tasks, in two lanes: interactive (a request's tasks) and
 * background (scheduled jobs'). A free worker takes the oldest interactive task it may run
 * before any background task, so a request waits at most for the job tasks already running
 * (short chunks), never for the job's queue. Within a lane, first in, first out. Strict
 * priority: background tasks run whenever no interactive task waits for that worker, so a
 * job finishes once requests stop (docs/architecture.md, "Priorities on the workers").
 */

/** whose work a task is: a request's (the default) or a scheduled job's */
export type Priority = 'interactive' | 'background'

export interface Queued {
  /** run only on this worker (null: any) */
  slot: number | null
  priority: Priority
}

export class TaskQueue<T extends Queued> {
  private readonly lanes: Record<Priority, T[]> = { interactive: [], background: [] }

  /** tasks waiting in one lane (the pool's backstop bound is per lane) */
  waiting(priority: Priority): number {
    return this.lanes[priority].length
  }

  get length(): number {
    return this.lanes.interactive.length + this.lanes.background.length
  }

  push(item: T): void {
    this.lanes[item.priority].push(item)
  }

  /** The next task worker `slot` runs: the oldest interactive one it may take, else the oldest background one. */
  take(slot: number): T | undefined {
    for (const lane of [this.lanes.interactive, this.lanes.background]) {
      const k = lane.findIndex(p => p.slot === null || p.slot === slot)
      if (k >= 0) return lane.splice(k, 1)[0]
    }
    return undefined
  }

  /** Every waiting task, removed (pool shutdown). */
  drain(): T[] {
    return [...this.lanes.interactive.splice(0), ...this.lanes.background.splice(0)]
  }
}
