/**
 * What a simulation task reads: candles, funding, margin brackets, minute detail and
 * derivatives samples by symbol. The main thread passes the store itself; a worker gets
 * the same SharedArrayBuffer-backed views by message.
 */
import type { DetailInfo } from '../../market/candle-store'
import { SAMPLE_KINDS, type Bars, type FundingSeries, type MarginBracket, type SampleKind, type SampleSeries } from '../../market/types'

export interface StoreView {
  bars(symbol: string): Bars | undefined
  funding(symbol: string): FundingSeries | undefined
  /** the symbol's margin brackets (issue 25 §3); undefined: the flat rate */
  marginBrackets(symbol: string): readonly MarginBracket[] | undefined
  /** derivatives samples (premium index, open interest); a view without them has none */
  samples?(kind: SampleKind, symbol: string): SampleSeries | undefined
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
}

export function snapshotOf(view: StoreView & { symbols(): string[]; sampleSymbols?(kind: SampleKind): string[] }): StoreSnapshot {
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
  return snap
}

export function viewOf(snap: StoreSnapshot): StoreView {
  return {
    bars: s => snap.bars[s],
    funding: s => snap.funding[s],
    marginBrackets: s => snap.brackets?.[s],
    samples: (kind, s) => snap.samples?.[kind]?.[s],
    dataVersion: () => snap.version,
    detailInfo: () => snap.detail,
  }
}
