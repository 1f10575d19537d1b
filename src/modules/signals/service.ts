/**
 * /signals/*: read the recorded signals and scored results; nothing is computed here
 * beyond shaping (the scanner and scorer jobs write the records).
 */
import type { Clock } from '../../clock'
import type { Db } from '../../db'
import { InvalidRequest } from '../../runs/errors'
import type { Universe } from '../../market/universe'
import { DayFiles } from '../../records/rankings/day-files'
import { eligibleList, type RankedRow } from '../../records/rankings/rank'
import { ENGINE_LABEL, latestScan, scoredRows, signalsOfBar, signalsPage, type ScoredJoined, type SignalRow } from '../../records/signals'
import { DAY_MS, HOUR_MS, isoInstant, isoNoZone } from '../../time'
import { scoredItem } from '../../records/scored-item'
import { signalItem } from '../../records/signal-item'
import { TtlCache } from '../../ttl-cache'

/** the contract's signal cache */
export const SIGNAL_CACHE_MS = 5 * 60_000
export const MAX_SIGNAL_IDS = 500
export const SCORED_NOTE =
  'Scored values are model outcomes on previously recorded reference candle prices and are not fills a recipient could obtain. Reference timestamps may precede publication or delivery.'

/** What a /signals/history cursor carries: the listing's window end and hours, and the last row given. */
interface HistoryCursor {
  to: number
  hours: number
  t: number
  id: string
}

/** Opaque to clients: base64url of a small JSON keyset. */
export const encodeHistoryCursor = (c: HistoryCursor): string => Buffer.from(JSON.stringify([c.to, c.hours, c.t, c.id])).toString('base64url')

function decodeHistoryCursor(raw: string, hours: number): HistoryCursor {
  const bad = (msg: string) => new InvalidRequest([{ loc: ['query', 'cursor'], msg, input: raw }])
  let v: unknown
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error()
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
  } catch {
    throw bad('not a cursor this endpoint gave: pass next_cursor of the previous page unchanged')
  }
  if (!Array.isArray(v) || v.length !== 4 || !Number.isSafeInteger(v[0]) || !Number.isSafeInteger(v[1]) || !Number.isSafeInteger(v[2]) || typeof v[3] !== 'string')
    throw bad('not a cursor this endpoint gave: pass next_cursor of the previous page unchanged')
  const c = { to: v[0] as number, hours: v[1] as number, t: v[2] as number, id: v[3] as string }
  if (c.hours !== hours) throw bad(`the cursor belongs to a listing of hours=${c.hours}; ask with hours=${c.hours}, or start over without cursor`)
  return c
}

export interface SignalsServiceDeps {
  db: Db
  clock: Clock
  universe: Universe
}

/** the ranking /signals/realtime joins: the 30-day period of the top-50 group */
export const REALTIME_PERIOD = '30d'
export const REALTIME_GROUP = 'top50'
/** the scanner is warm when its newest 1H scan ran this recently */
export const SCANNER_WARM_MS = 2 * HOUR_MS

/**
 * The ranking row a strategy's signals are judged by (rule 2): its best-ranked 1H row, or,
 * when it has none on 1H, its best-ranked row of any timeframe.
 */
export function rankingRowFor(rows: readonly RankedRow[], strategy: string): RankedRow | null {
  let best1h: RankedRow | null = null
  let best: RankedRow | null = null
  for (const r of rows) {
    if (r.strategy !== strategy) continue
    if (r.timeframe === '1H' && (best1h === null || r.rank < best1h.rank)) best1h = r
    if (best === null || r.rank < best.rank) best = r
  }
  return best1h ?? best
}

export class SignalsService {
  private readonly liveCache: TtlCache<ReturnType<typeof signalItem>[]>
  private readonly realtimeCache: TtlCache<Awaited<ReturnType<SignalsService['computeRealtime']>>>
  private readonly dayFiles: DayFiles

  constructor(private readonly deps: SignalsServiceDeps) {
    this.liveCache = new TtlCache(deps.clock, SIGNAL_CACHE_MS)
    this.realtimeCache = new TtlCache(deps.clock, SIGNAL_CACHE_MS)
    this.dayFiles = new DayFiles(deps.db)
  }

  /** /signals/realtime: the contract's rules 1–5 (docs/signals.md). */
  async realtime(minPf: number, maxResults: number) {
    // keyed by the newest scanned bar too: a scan made inside the 5 minutes shows at once
    return this.realtimeCache.getAsync(`${minPf}|${maxResults}|${(await latestScan(this.deps.db, '1H'))?.signalBarMs}`, () => this.computeRealtime(minPf, maxResults))
  }

  private async computeRealtime(minPf: number, maxResults: number) {
    const now = this.deps.clock.now()
    const scan = await latestScan(this.deps.db, '1H')
    if (!scan || now - scan.scannedAtMs > SCANNER_WARM_MS) return []
    const date = await this.dayFiles.latest()
    if (date === null) return []
    // the ranked list users see: rows held back for too few trades are not in it, ranks are eligible ranks
    const rows = eligibleList((await this.dayFiles.get(date))!.file.periods[REALTIME_PERIOD]?.groups[REALTIME_GROUP]?.rows ?? [], null, false)
    const rank = new Map(this.deps.universe.all().map((c, i) => [c.meta.symbol, i]))
    return (await signalsOfBar(this.deps.db, '1H', scan.signalBarMs))
      .map(s => ({ s, row: rankingRowFor(rows, s.strategy) }))
      .filter((x): x is { s: SignalRow; row: RankedRow } => x.row !== null && x.row.direction === x.s.direction && x.row.profit_factor >= minPf)
      .sort((a, b) => a.row.rank - b.row.rank || (rank.get(a.s.coin) ?? 1e9) - (rank.get(b.s.coin) ?? 1e9))
      .slice(0, maxResults)
      .map(({ s, row }) => ({
        ...signalItem(s),
        configuration_id: row.configuration_id,
        rank: row.rank,
        profit_factor: row.profit_factor,
        win_rate: row.win_rate,
        trades: row.total_trades,
        ranking_timeframe: row.timeframe,
        ranking_date: date,
      }))
  }

  /** Verified strategies' 1H signals of the newest scanned bar on the top `topN` coins. */
  async live(topN: number) {
    const scan = await latestScan(this.deps.db, '1H')
    // keyed by the newest scanned bar too: a scan made inside the 5 minutes shows at once
    return this.liveCache.getAsync(`${topN}|${scan?.signalBarMs}`, async () => {
      if (!scan) return []
      const rank = new Map(this.deps.universe.topN(topN).map((c, i) => [c.meta.symbol, i]))
      return (await signalsOfBar(this.deps.db, '1H', scan.signalBarMs))
        .filter(s => s.status === 'verified' && rank.has(s.coin))
        .sort((a, b) => rank.get(a.coin)! - rank.get(b.coin)! || a.strategy.localeCompare(b.strategy))
        .map(signalItem)
    })
  }

  /**
   * /signals/history, one page: the window [as_of − hours, as_of] is fixed by the first
   * page and carried in the cursor, so the pages of one listing neither shift nor overlap
   * while new signals are recorded.
   */
  async history(q: { hours: number; limit: number; cursor?: string }) {
    const c = q.cursor === undefined ? null : decodeHistoryCursor(q.cursor, q.hours)
    const toMs = c ? c.to : this.deps.clock.now()
    const fromMs = toMs - q.hours * HOUR_MS
    const { rows, total } = await signalsPage(this.deps.db, { fromMs, toMs, after: c ? { signalTimeMs: c.t, id: c.id } : null, limit: q.limit + 1 })
    const page = rows.slice(0, q.limit)
    const last = page.at(-1)
    const next_cursor = rows.length > q.limit && last ? encodeHistoryCursor({ to: toMs, hours: q.hours, t: last.signalTimeMs, id: last.id }) : null
    return { as_of: isoInstant(toMs), hours: q.hours, limit: q.limit, count: page.length, total, next_cursor, signals: page.map(signalItem) }
  }

  async scored(q: { days: number; limit: number; signal_ids?: string }) {
    const now = this.deps.clock.now()
    let rows: ScoredJoined[]
    if (q.signal_ids !== undefined) {
      const ids = q.signal_ids.split(',').map(s => s.trim())
      if (ids.length > MAX_SIGNAL_IDS || ids.some(id => id.length === 0)) {
        throw new InvalidRequest([
          {
            loc: ['query', 'signal_ids'],
            msg: ids.length > MAX_SIGNAL_IDS ? `at most ${MAX_SIGNAL_IDS} ids, got ${ids.length}` : 'comma-separated ids, none empty',
            input: q.signal_ids,
          },
        ])
      }
      rows = await scoredRows(this.deps.db, { ids: [...new Set(ids)] })
    } else {
      rows = await scoredRows(this.deps.db, { sinceMs: now - q.days * DAY_MS, limit: q.limit })
    }
    return { as_of: isoInstant(now), engine: ENGINE_LABEL, note: SCORED_NOTE, signals: rows.map(scoredItem) }
  }
}
