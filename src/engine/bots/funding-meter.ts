/**
 * Funding of a bot's position, event by event (docs/bots.md §1): a position whose size
 * changes between fills pays or receives at each funding event T on the quantity held
 * across T, by the trade model's rule (a lot entered at instant x is charged for T > x,
 * a lot closed at instant y for T < y). The events and their rate × P(T) come from
 * `fundingEventsInWindow` (engine/funding.ts), where the rule is written.
 */
import type { FundingEvents } from '../funding'

export class FundingMeter {
  /** events charged on a non-zero quantity, and how many of them were real */
  events = 0
  real = 0
  private j = 0

  constructor(private readonly ev: FundingEvents) {}

  /**
   * Charge every event not yet charged with T < tMs on `qty` (signed: + long, − short).
   * Returns the amount paid (positive = paid, negative = received).
   */
  chargeBefore(tMs: number, qty: number): number {
    const { tMs: ts, ratePrice, real, n } = this.ev
    let paid = 0
    for (; this.j < n && ts[this.j] < tMs; this.j++) {
      if (qty === 0) continue
      paid += qty * ratePrice[this.j]
      this.events++
      this.real += real[this.j]
    }
    return paid
  }

  /**
   * Charge the events at exactly tMs, an instant at which fills happen, on `qtyAcross`:
   * the lots held before the instant and not closed at it.
   */
  chargeAt(tMs: number, qtyAcross: number): number {
    const { tMs: ts, ratePrice, real, n } = this.ev
    let paid = 0
    for (; this.j < n && ts[this.j] === tMs; this.j++) {
      if (qtyAcross === 0) continue
      paid += qtyAcross * ratePrice[this.j]
      this.events++
      this.real += real[this.j]
    }
    return paid
  }
}
