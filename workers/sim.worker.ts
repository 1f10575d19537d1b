/**
 * The simulation worker: holds the store snapshot (SharedArrayBuffer views, no copies)
 * and runs tasks from src/services/tasks.ts on request.
 */
import { TaskContext, TASKS, type TaskName } from '../src/services/tasks'
import { viewOf, type StoreSnapshot } from '../src/services/store-view'

declare const self: Worker

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
