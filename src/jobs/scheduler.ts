/**
 * Timers for background jobs. Each job runs at most once at a time; an error is logged
 * and the job keeps its schedule. Times come from the injected clock, so a job that
 * should run "at the top of the hour" is aligned to the clock's hour.
 */
import type { Clock } from '../clock'
import type { Logger } from '../log'

export class Scheduler {
  private timers = new Set<ReturnType<typeof setTimeout>>()
  private stopped = false

  constructor(private readonly clock: Clock, private readonly log: Logger) {}

  /** Run `fn` every `periodMs`, aligned to multiples of periodMs (+offsetMs) of clock time. */
  everyAligned(name: string, periodMs: number, offsetMs: number, fn: () => Promise<void> | void): void {
    const schedule = () => {
      if (this.stopped) return
      const now = this.clock.now()
      const next = Math.floor((now - offsetMs) / periodMs) * periodMs + periodMs + offsetMs
      this.after(next - now, async () => {
        await this.runOnce(name, fn)
        schedule()
      })
    }
    schedule()
  }

  /** Run `fn` every `periodMs` from now. */
  every(name: string, periodMs: number, fn: () => Promise<void> | void): void {
    const loop = () =>
      this.after(periodMs, async () => {
        await this.runOnce(name, fn)
        loop()
      })
    loop()
  }

  async runOnce(name: string, fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn()
    } catch (e) {
      this.log.error(`job ${name} failed: ${(e as Error)?.stack ?? e}`)
    }
  }

  private after(ms: number, fn: () => void): void {
    if (this.stopped) return
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, Math.max(0, ms))
    this.timers.add(timer)
  }

  stop(): void {
    this.stopped = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}
