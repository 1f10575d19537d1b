/** Give the event loop a turn: queued requests (/health) are served before the next step. */
export function yieldToLoop(): Promise<void> {
  return new Promise(resolve => setImmediate(resolve))
}
