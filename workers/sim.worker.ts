/**
 * The simulation worker: holds the store snapshot (SharedArrayBuffer views, no copies)
 * and runs the tasks registered in src/runs/compute/tasks.ts on request.
 */
import { setPriority } from 'node:os'
import { TaskContext } from '../src/runs/compute/context'
import { viewOf, type StoreSnapshot } from '../src/runs/compute/store-view'
import { taskNamed } from '../src/runs/compute/tasks'

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

self.onmessage = (ev: MessageEvent) => {
  const msg = ev.data as { type: 'store'; snapshot: StoreSnapshot } | { type: 'task'; id: number; task: string; payload: unknown }
  if (msg.type === 'store') {
    ctx.setView(viewOf(msg.snapshot))
    return
  }
  try {
    const task = taskNamed(msg.task)
    if (!task) throw new Error(`unknown task '${msg.task}'`)
    const result = task(ctx, msg.payload)
    self.postMessage({ type: 'result', id: msg.id, ok: true, result })
  } catch (e) {
    self.postMessage({ type: 'result', id: msg.id, ok: false, error: (e as Error)?.message ?? String(e) })
  }
}
