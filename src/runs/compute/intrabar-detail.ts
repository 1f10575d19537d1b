/**
 * The minute detail a coin task hands the trade model (engine/intrabar.ts IntrabarDetail):
 * the store's 1m series where it holds one for the coin (read lazily, only the hours a
 * replay asks for: market/detail-store.ts), else, on a synthetic store, the minutes derived
 * from the coin's hourly candles (market/synthetic-minutes.ts), else none.
 */
import type { IntrabarDetail, MinuteSpan } from '../../engine/intrabar'
import type { DetailInfo } from '../../market/candle-store'
import { MinuteReader } from '../../market/detail-store'
import { MINUTES_PER_HOUR, minuteLabel, syntheticMinutes, type MinuteColumns } from '../../market/synthetic-minutes'
import type { Bars } from '../../market/types'
import { lowerBound } from '../../sorted-search'

/** Minutes derived from a synthetic coin's 1H candles: a pure function of (seed, symbol, hour). */
export class DerivedMinutes implements IntrabarDetail {
  private cap = 0
  private cols: MinuteColumns = { t: new Float64Array(0), o: new Float64Array(0), h: new Float64Array(0), l: new Float64Array(0), c: new Float64Array(0), v: new Float64Array(0) }
  private readonly span: MinuteSpan
  private readonly label: number

  /** `hours`: the coin's 1H candles (the store's base series) */
  constructor(private readonly hours: Bars, seed: number, symbol: string) {
    this.label = minuteLabel(seed, symbol)
    this.span = { t: this.cols.t, o: this.cols.o, h: this.cols.h, l: this.cols.l, c: this.cols.c, from: 0, to: 0 }
  }

  minutes(startMs: number, endMs: number): MinuteSpan | null {
    const b = this.hours
    let i = lowerBound(b.t, startMs, b.n)
    const first = i
    while (i < b.n && b.t[i] < endMs) i++
    const count = i - first
    if (count === 0) return null
    this.ensure(count * MINUTES_PER_HOUR)
    for (let j = 0; j < count; j++) {
      const k = first + j
      syntheticMinutes(this.label, b.t[k], b.o[k], b.h[k], b.l[k], b.c[k], b.v[k], this.cols, j * MINUTES_PER_HOUR)
    }
    this.span.from = 0
    this.span.to = count * MINUTES_PER_HOUR
    return this.span
  }

  private ensure(rows: number): void {
    if (rows <= this.cap) return
    const cap = Math.max(rows, 4 * MINUTES_PER_HOUR)
    this.cols = { t: new Float64Array(cap), o: new Float64Array(cap), h: new Float64Array(cap), l: new Float64Array(cap), c: new Float64Array(cap), v: new Float64Array(cap) }
    this.cap = cap
    Object.assign(this.span, { t: this.cols.t, o: this.cols.o, h: this.cols.h, l: this.cols.l, c: this.cols.c })
  }
}


/** A coin's stored 1m candles, read lazily (detail-store.ts MinuteReader). */
export class StoredMinutes implements IntrabarDetail {
  private readonly span: MinuteSpan = { t: new Float64Array(0), o: new Float64Array(0), h: new Float64Array(0), l: new Float64Array(0), c: new Float64Array(0), from: 0, to: 0 }

  constructor(private readonly reader: MinuteReader) {}

  minutes(startMs: number, endMs: number): MinuteSpan | null {
    const r = this.reader.rows(startMs, endMs)
    if (!r) return null
    const s = this.span
    s.t = r.t
    s.o = r.o
    s.h = r.h
    s.l = r.l
    s.c = r.c
    s.from = 0
    s.to = r.n
    return s
  }
}

/**
 * A coin's minute detail on this thread: its stored minutes, else on a synthetic store the
 * minutes derived from `hours` (its 1H candles), else null.
 */
export function openDetail(info: DetailInfo, symbol: string, hours: Bars | undefined): IntrabarDetail | null {
  const source = detailSourceOf(info, symbol, hours !== undefined)
  if (source === 'stored') return new StoredMinutes(new MinuteReader(`${info.storedDir}/${symbol}`))
  if (source === 'derived') return new DerivedMinutes(hours!, info.syntheticSeed!, symbol)
  return null
}

/** Where a coin's minutes come from on this thread (CandleStore.detailSource's rule, read from the view's DetailInfo); `hasHours`: the coin has 1H candles. */
export function detailSourceOf(info: DetailInfo, symbol: string, hasHours: boolean): 'stored' | 'derived' | null {
  if (info.stored.includes(symbol)) return 'stored'
  return info.syntheticSeed !== null && hasHours ? 'derived' : null
}
