/**
 * /trust/*: day roots, leaves and proofs as stored (or, for a day not sealed yet, as the
 * records stand), execution-quality figures computed from the records, the anonymized
 * real-money NAV track, and the real-mode checklist. Nothing here writes.
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import { auditPath, MERKLE_ALGORITHM, toHex } from '../../engine/merkle'
import { InvalidRequest, NotFound } from '../../runs/errors'
import type { CandleStore } from '../../market/candle-store'
import type { Universe } from '../../market/universe'
import { DAY_MS, HOUR_MS, isoInstant } from '../../time'
import { realTrackRows } from '../../records/real-track'
import { firstPublishedMs, latestScan, publicationsSince, publishedCountSince } from '../../records/signals'
import { dayRootItem, dayStartOf, dayView, sealedRoot, type LeafSource } from '../../records/merkle-leaves'
import type { PaperFigures } from '../../records/paper'
import { roundTo } from '../../round'

export interface TrustDeps {
  db: Db
  clock: Clock
  store: CandleStore
  universe: Universe
  leafSources?: LeafSource[]
  /** paper-trading figures for the metrics and the checklist; absent until paper trading runs */
  paper?: PaperFigures
  adminKeyConfigured: boolean
  smtpConfigured: boolean
}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}

/** the checklist's bound on publication latency: a signal recorded at its bar's close, give or take the hourly sync */
export const MAX_LATENCY_P90_S = 120
const r4 = (x: number | null) => (x === null ? null : roundTo(x, 4))

export class TrustService {
  constructor(private readonly deps: TrustDeps) {}

  private day(date: string): number {
    const ms = dayStartOf(date)
    if (ms === null) throw new InvalidRequest([{ loc: ['path', 'date'], msg: 'a UTC calendar day as YYYYMMDD', input: date }])
    return ms
  }

  /**
   * Why a day has no root to show yet: it has not ended by the clock (null: it has ended).
   * A day still running has no root, not even an empty one: root null with leaf_count 0 is
   * the evidence of no trades on a finished day, which a running day cannot give.
   */
  private notEnded(date: string): string | null {
    const endMs = this.day(date) + DAY_MS
    if (endMs <= this.deps.clock.now()) return null
    return `${date} is not sealed yet: the UTC day has not ended (it ends at ${isoInstant(endMs)}); its root is sealed by the hourly job once its records are final`
  }

  /** NotFound (404) for a day that has not ended by the clock. */
  private mustHaveEnded(date: string): void {
    const why = this.notEnded(date)
    if (why !== null) throw new NotFound(why)
  }

  /** Is the day sealed (its answers never change again)? */
  async isSealed(date: string): Promise<boolean> {
    return (await sealedRoot(this.deps.db, date)) !== undefined
  }

  /** The day's root (sealed, or from the records final so far on a day that has ended); NotFound: the day has not ended. */
  async merkle(date: string) {
    const dayMs = this.day(date)
    this.mustHaveEnded(date)
    const sealed = await sealedRoot(this.deps.db, date)
    if (sealed) return dayRootItem(sealed)
    const v = await dayView(this.deps.db, date, dayMs, this.deps.leafSources ?? [])
    return { date, leaf_count: v.leaves.length, root: v.root, algorithm: MERKLE_ALGORITHM, sealed: v.sealed, sealed_at: v.sealedAtMs === null ? null : isoInstant(v.sealedAtMs) }
  }

  async leaves(date: string) {
    this.mustHaveEnded(date)
    const v = await dayView(this.deps.db, date, this.day(date), this.deps.leafSources ?? [])
    return {
      date,
      algorithm: MERKLE_ALGORITHM,
      sealed: v.sealed,
      root: v.root,
      leaf_count: v.leaves.length,
      leaves: v.leaves.map((l, index) => ({ index, record_id: l.recordId, leaf: l.leaf, leaf_hash: l.leafHash })),
    }
  }

  async proof(date: string, leafHash: string) {
    this.mustHaveEnded(date)
    const v = await dayView(this.deps.db, date, this.day(date), this.deps.leafSources ?? [])
    const hash = leafHash.toLowerCase()
    const index = v.leaves.findIndex(l => l.leafHash === hash)
    if (index < 0) throw new NotFound(`no leaf with hash ${hash} on ${date}`)
    const hashes = v.leaves.map(l => new Uint8Array(Buffer.from(l.leafHash, 'hex')))
    return {
      date,
      algorithm: MERKLE_ALGORITHM,
      sealed: v.sealed,
      root: v.root!,
      tree_size: v.leaves.length,
      leaf_index: index,
      leaf_hash: hash,
      leaf: v.leaves[index]!.leaf,
      audit_path: auditPath(hashes, index).map(toHex),
    }
  }

  async metrics() {
    const { db } = this.deps
    const now = this.deps.clock.now()
    const week = now - 7 * DAY_MS
    const recent = await publicationsSince(db, week)
    const latency = recent.filter(r => !r.backfill).map(r => (r.pub - r.st) / 1000).sort((a, b) => a - b)
    const scored = recent.filter(r => r.status !== null)
    const final = scored.filter(r => r.status !== 'open')
    const unscoreable = final.filter(r => r.status === 'unscoreable')
    const paper = this.deps.paper
    const slip = paper ? (await paper.slippagePct(week)).map(Math.abs).sort((a, b) => a - b) : []
    const [withSlTp, positions] = paper ? await paper.slTpSet(week) : [0, 0]
    return {
      generated_at: isoInstant(now),
      window: '7d',
      signals_published_24h: await publishedCountSince(db, now - DAY_MS),
      signals_published_7d: recent.length,
      publication_latency_s: { median: r4(quantile(latency, 0.5)), p90: r4(quantile(latency, 0.9)), samples: latency.length, measured: 'published_at − signal_time, hourly scans only (backfill excluded)' },
      scoring_coverage: recent.length ? r4(scored.length / recent.length) : null,
      final_share: recent.length ? r4(final.length / recent.length) : null,
      unscoreable_share: final.length ? r4(unscoreable.length / final.length) : null,
      paper_vs_reference_slippage_pct: { median: r4(quantile(slip, 0.5)), p90: r4(quantile(slip, 0.9)), samples: slip.length },
      paper_positions_with_sl_tp_share: positions ? r4(withSlTp / positions) : null,
    }
  }

  async realTrack() {
    const rows = await realTrackRows(this.deps.db)
    let peak = -Infinity
    let maxDd = 0
    for (const r of rows) {
      peak = Math.max(peak, r.nav)
      if (peak > 0) maxDd = Math.max(maxDd, (1 - r.nav / peak) * 100)
    }
    const first = rows[0]
    const last = rows.at(-1)
    return {
      points: rows.map(r => ({ t: isoInstant(r.tMs), nav: r.nav })),
      count: rows.length,
      first: first ? isoInstant(first.tMs) : null,
      last: last ? isoInstant(last.tMs) : null,
      return_pct: first && last && first.nav > 0 ? r4((last.nav / first.nav - 1) * 100) : null,
      max_drawdown_pct: rows.length ? r4(maxDd) : null,
    }
  }

  async checklist() {
    const now = this.deps.clock.now()
    const { store, universe, db } = this.deps
    const top = universe.topN(100)
    const lastCloses = top.map(c => store.bars(c.meta.symbol)!).filter(b => b.n > 0).map(b => b.t[b.n - 1] + b.stepMs)
    const newest = lastCloses.length ? Math.max(...lastCloses) : null
    const ageH = newest === null ? null : (now - newest) / HOUR_MS
    const scan = await latestScan(db, '1H')
    const scanAgeH = scan ? (now - scan.scannedAtMs) / HOUR_MS : null
    const firstScanMs = await firstPublishedMs(db)
    const m = await this.metrics()
    const cycles = (await this.deps.paper?.completedCycles()) ?? 0
    const slipP90 = m.paper_vs_reference_slippage_pct.p90
    const latencyP90 = m.publication_latency_s.p90
    const item = (id: string, ok: boolean, value: unknown, threshold: string, todo: string) => ({ id, status: ok ? ('pass' as const) : ('fail' as const), value, threshold, action: ok ? null : todo })
    const items = [
      item('data_fresh', ageH !== null && ageH <= 2, ageH === null ? null : r4(ageH), 'newest candle closed ≤ 2 h ago', 'leave SYNC on (the service syncs every hour) and check the exchange connection, or run `cli data sync` on a schedule'),
      item('real_data', !store.isSynthetic() && store.coinCount > 0, store.sources(), 'imported or synced exchange data, no synthetic', 'import Binance data (`cli data import`) or sync (`cli data sync`) into a fresh store'),
      item('scanner_warm', scanAgeH !== null && scanAgeH <= 2 && firstScanMs !== null && now - firstScanMs >= 72 * HOUR_MS, { last_scan_age_h: scanAgeH === null ? null : r4(scanAgeH), recording_since: firstScanMs === null ? null : isoInstant(firstScanMs) }, 'a 1H scan ≤ 2 h ago and ≥ 72 h of records', 'keep the service running: the hourly scan warms up over 72 hours'),
      item('publication_latency', latencyP90 !== null && latencyP90 <= MAX_LATENCY_P90_S, m.publication_latency_s, `p90 published_at − signal_time ≤ ${MAX_LATENCY_P90_S} s (signals recorded at their bar's close)`, 'the forming candle\'s open is missing: keep the hourly candles job running (SYNC or demo mode) and check its runs in `cli jobs list`'),
      item('scoring_coverage', (m.scoring_coverage ?? 0) >= 0.99, m.scoring_coverage, '≥ 0.99 of the last 7 days of signals scored', 'check the scoring job in `cli jobs list`'),
      item('paper_cycle_completed', cycles >= 1, cycles, '≥ 1 completed 30-day paper cycle', 'let paper trading run a full cycle'),
      item('paper_slippage', slipP90 !== null && slipP90 <= 0.1, slipP90, 'p90 |paper entry − reference entry| ≤ 0.1 %', 'paper positions are needed to measure it; investigate entries that deviate'),
      item('admin_key', this.deps.adminKeyConfigured, this.deps.adminKeyConfigured, 'ADMIN_KEY set', 'set ADMIN_KEY'),
      item('smtp', this.deps.smtpConfigured, this.deps.smtpConfigured, 'SMTP_URL set', 'set SMTP_URL so alerts and mail leave the machine'),
    ]
    return { generated_at: isoInstant(now), ready: items.every(i => i.status === 'pass'), passed: items.filter(i => i.status === 'pass').length, total: items.length, items }
  }
}
