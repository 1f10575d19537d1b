/**
 * The simulation worker: holds the store snapshot (SharedArrayBuffer views, no copies)
 * and runs the tasks registered in src/runs/compute/tasks.ts on request.
 */
import { setPriority } from 'node:os'
import { TaskContext } from '../src/runs/compute/context'
import { boundedView, reachesFurther, viewOf, type StoreSnapshot, type StoreView, type TaskView } from '../src/runs/compute/store-view'
import { taskNamed, transferablesOf } from '../src/runs/compute/tasks'

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

const ctx = new TaskContext(viewOf({ version: '', bars: {}, funding: {}, detail: { syntheticSeed: null, storedDir: '', stored: [] } }))
/** the whole snapshot's view; a task with a view of its own (TaskView) runs on a cut of it */
let whole: StoreView = ctx.view

self.onmessage = (ev: MessageEvent) => {
  const msg = ev.data as { type: 'store'; snapshot: StoreSnapshot } | { type: 'task'; id: number; task: string; payload: unknown; view?: TaskView }
  if (msg.type === 'store') {
    whole = viewOf(msg.snapshot)
    ctx.setView(whole)
    return
  }
  try {
    const task = taskNamed(msg.task)
    if (!task) throw new Error(`unknown task '${msg.task}'`)
    // a queued task sees only the rows it was cut for: the whole view when this host's store
    // holds no more (its caches kept), else a cut one under its own data version, so the
    // caches built on it are not mixed with the whole view's
    ctx.setView(msg.view && reachesFurther(whole, msg.view.bounds) ? boundedView(whole, msg.view.bounds, msg.view.version) : whole)
    const result = task(ctx, msg.payload)
    self.postMessage({ type: 'result', id: msg.id, ok: true, result }, transferablesOf(msg.task, result))
  } catch (e) {
    self.postMessage({ type: 'result', id: msg.id, ok: false, error: (e as Error)?.message ?? String(e) })
  }
}
