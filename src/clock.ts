/** The injected clock: everything that depends on "now" asks this, so tests control time. */
export interface Clock {
  /** epoch milliseconds */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that moves only when told to (tests). */
export class ManualClock implements Clock {
  constructor(private tMs: number) {}
  now(): number {
    return this.tMs
  }
  set(tMs: number): void {
    this.tMs = tMs
  }
  advance(ms: number): void {
    this.tMs += ms
  }
}
