/**
 * What a simulation task reads: candles, funding, margin brackets, minute detail and
 * derivatives samples by symbol. The main thread passes the store itself; a worker gets
 * the same SharedArrayBuffer-backed views by message.
 */
import type { DetailInfo } from '../../market/candle-store'
import { SAMPLE_KINDS, type Bars, type FundingSeries, type MarginBracket, type MarkSeries, type SampleKind, type SampleSeries } from '../../market/types'

export interface StoreView {
  bars(symbol: string): Bars | undefined
  funding(symbol: string): FundingSeries | undefined
  /** the symbol's margin brackets (issue 25 §3); undefined: the flat rate */
  marginBrackets(symbol: string): readonly MarginBracket[] | undefined
  /** derivatives samples (premium index, open interest); a view without them has none */
  samples?(kind: SampleKind, symbol: string): SampleSeries | undefined
  /** 1H mark-price candles (liquidation is tested on them where present); a view without them has none */
  mark?(symbol: string): MarkSeries | undefined
  /** digest of the data, part of every cache key */
  dataVersion(): string
  /** where the coins' minute detail is (compute/intrabar-detail.ts) */
  detailInfo(): DetailInfo
}

export interface StoreSnapshot {
  version: string
  bars: Record<string, Bars>
  funding: Record<string, FundingSeries>
  detail: DetailInfo
  /** absent in snapshots made before brackets existed */
  brackets?: Record<string, readonly MarginBracket[]>
  samples?: Partial<Record<SampleKind, Record<string, SampleSeries>>>
  /** absent where the store has no mark-price candles */
  mark?: Record<string, MarkSeries>
}

/**
 * Per coin, the rows a task may see: candles, funding, then each kind of derivatives
 * samples (SAMPLE_KINDS order): a worker whose store reaches
 * further than the API's did shows a queued task only the rows it was cut for.
 */
export type ViewBounds = Record<string, number[]>

/**
 * A task's own cut of the store: how many rows of each coin it may see (ViewBounds), and the
 * data version of a view cut to them.
 */
export interface TaskView {
  bounds: ViewBounds
  version: string
}

/** Whether `view` holds more rows of some coin than `bounds` lets a task see (then the task needs boundedView). */
export function reachesFurther(view: StoreView, bounds: ViewBounds): boolean {
  for (const s in bounds) {
    const [candles, funding, ...samples] = bounds[s]
    if ((view.bars(s)?.n ?? 0) > candles || (view.funding(s)?.n ?? 0) > funding) return true
    for (const [k, kind] of SAMPLE_KINDS.entries()) if ((view.samples?.(kind, s)?.n ?? 0) > (samples[k] ?? 0)) return true
  }
  return false
}

/** `view` cut to `bounds` (coins not named are whole), under data version `version`. */
export function boundedView(view: StoreView, bounds: ViewBounds, version: string): StoreView {
  const bars = new Map<string, Bars | undefined>()
  const funding = new Map<string, FundingSeries | undefined>()
  const sampled = new Map<string, SampleSeries>()
  return {
    bars(s) {
      const b = view.bars(s)
      const cut = bounds[s]
      if (!b || !cut || cut[0] >= b.n) return b
      // a coin the API's store did not have: none here either
      if (cut[0] === 0) return undefined
      if (!bars.has(s)) {
        const n = cut[0]
        bars.set(s, { t: b.t.subarray(0, n), o: b.o.subarray(0, n), h: b.h.subarray(0, n), l: b.l.subarray(0, n), c: b.c.subarray(0, n), v: b.v.subarray(0, n), n, stepMs: b.stepMs })
      }
      return bars.get(s)
    },
    funding(s) {
      const f = view.funding(s)
      const cut = bounds[s]
      if (!f || !cut || cut[1] >= f.n) return f
      // no funding event yet where the task was cut: read as the API's store read it, none at all
      if (cut[1] === 0) return undefined
      if (!funding.has(s)) funding.set(s, { t: f.t.subarray(0, cut[1]), rate: f.rate.subarray(0, cut[1]), n: cut[1] })
      return funding.get(s)
    },
    samples(kind, s) {
      const x = view.samples?.(kind, s)
      const n = bounds[s]?.[2 + SAMPLE_KINDS.indexOf(kind)]
      if (!x || n === undefined || n >= x.n) return x
      if (n === 0) return undefined
      const key = `${kind}|${s}`
      if (!sampled.has(key)) sampled.set(key, { t: x.t.subarray(0, n), value: x.value.subarray(0, n), n })
      return sampled.get(key)
    },
    marginBrackets: s => view.marginBrackets(s),
    // mark candles past the cut are never read (mark-price.ts lines them up with the bars); a worker whose coin holds other mark candles has another coin digest
    mark: s => view.mark?.(s),
    detailInfo: () => view.detailInfo(),
    dataVersion: () => version,
  }
}

export function snapshotOf(view: StoreView & { symbols(): string[]; sampleSymbols?(kind: SampleKind): string[]; markSymbols?(): string[] }): StoreSnapshot {
  const snap: StoreSnapshot = { version: view.dataVersion(), bars: {}, funding: {}, detail: view.detailInfo(), brackets: {} }
  for (const s of view.symbols()) {
    snap.bars[s] = view.bars(s)!
    const f = view.funding(s)
    if (f) snap.funding[s] = f
    const b = view.marginBrackets(s)
    if (b) snap.brackets![s] = b
  }
  for (const kind of SAMPLE_KINDS) {
    const symbols = view.sampleSymbols?.(kind) ?? []
    if (symbols.length === 0) continue
    const byKind: Record<string, SampleSeries> = {}
    for (const s of symbols) byKind[s] = view.samples!(kind, s)!
    ;(snap.samples ??= {})[kind] = byKind
  }
  for (const s of view.markSymbols?.() ?? []) (snap.mark ??= {})[s] = view.mark!(s)!
  return snap
}

export function viewOf(snap: StoreSnapshot): StoreView {
  return {
    bars: s => snap.bars[s],
    funding: s => snap.funding[s],
    marginBrackets: s => snap.brackets?.[s],
    samples: (kind, s) => snap.samples?.[kind]?.[s],
    mark: s => snap.mark?.[s],
    dataVersion: () => snap.version,
    detailInfo: () => snap.detail,
  }
}
