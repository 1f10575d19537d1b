/**
 * The simulation worker: holds the store snapshot (SharedArrayBuffer views, no copies)
 * and runs tasks from src/services/tasks.ts on request.
 */
import { setPriority } from 'node:os'
import { TaskContext, TASKS, type TaskName } from '../src/services/tasks'
import { viewOf, type StoreSnapshot } from '../src/services/store-view'

declare const self: Worker

/**
 * The workers run at a lower CPU priority than the request loop (nice +10 on this thread;
 * Linux applies it to the calling thread only): on a machine with as many workers as
 * cores, a run in flight would otherwise take the main thread's share of the CPU and hold
 * /health and every light request behind it. Idle CPU is still the workers'.
 */
export const WORKER_NICE = 10
// elsewhere setpriority(2) would lower the whole process, the request loop with it
if (process.platform === 'linux') {
  try {
    setPriority(WORKER_NICE)
  } catch {
    // not permitted here: the workers run at the default priority
  }
}

const ctx = new TaskContext(viewOf({ version: '', bars: {}, funding: {} }))

self.onmessage = (ev: MessageEvent) => {
  const msg = ev.data as { type: 'store'; snapshot: StoreSnapshot } | { type: 'task'; id: number; task: TaskName; payload: any }
  if (msg.type === 'store') {
    ctx.setView(viewOf(msg.snapshot))
    return
  }
  try {
    const result = TASKS[msg.task](ctx, msg.payload)
    self.postMessage({ type: 'result', id: msg.id, ok: true, result })
  } catch (e) {
    self.postMessage({ type: 'result', id: msg.id, ok: false, error: (e as Error)?.message ?? String(e) })
  }
}
