/**
 * Long engine computations written as generators that pause (yield) between their steps:
 * the service's main thread gives the event loop a turn at each pause (runs/yield.ts,
 * `stepped`), while workers, tests and tools run them straight through with `finish`.
 */
export type Steps<T> = Generator<void, T, void>

/** Run the steps to the end, without pausing. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next()
    if (r.done) return r.value
  }
}
