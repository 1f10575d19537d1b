/**
 * What a simulation task reads: candles and funding by symbol. The main thread passes
 * the store itself; a worker gets the same SharedArrayBuffer-backed views by message.
 */
import type { DetailInfo } from '../../market/candle-store'
import type { Bars, FundingSeries } from '../../market/types'

export interface StoreView {
  bars(symbol: string): Bars | undefined
  funding(symbol: string): FundingSeries | undefined
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
}

export function snapshotOf(view: StoreView & { symbols(): string[] }): StoreSnapshot {
  const snap: StoreSnapshot = { version: view.dataVersion(), bars: {}, funding: {}, detail: view.detailInfo() }
  for (const s of view.symbols()) {
    snap.bars[s] = view.bars(s)!
    const f = view.funding(s)
    if (f) snap.funding[s] = f
  }
  return snap
}

export function viewOf(snap: StoreSnapshot): StoreView {
  return {
    bars: s => snap.bars[s],
    funding: s => snap.funding[s],
    dataVersion: () => snap.version,
    detailInfo: () => snap.detail,
  }
}
