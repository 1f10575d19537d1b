/**
 * Give the event loop a turn: queued requests (/health) are served before the next step.
 *
 * Every paused step of every run in flight waits in one queue, and one step resumes per turn
 * of the loop, with the network polled between any two: with a setImmediate per step, the
 * steps of all runs in flight would resume in the same turn, one after another, and a
 * request would wait for one step of each run instead of one step in all.
 */
const paused: (() => void)[] = []
let scheduled = false

export function yieldToLoop(): Promise<void> {
  return new Promise(resolve => {
    paused.push(resolve)
    if (!scheduled) {
      scheduled = true
      setImmediate(resumeOne)
    }
  })
}

function resumeOne(): void {
  const next = paused.shift()
  if (paused.length > 0) setImmediate(resumeOne)
  else scheduled = false
  next?.()
}

/** Run a generator of steps to its end, giving the event loop a turn at each pause. */
export async function stepped<T>(steps: Generator<void, T, void>): Promise<T> {
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
    await yieldToLoop()
  }
}
