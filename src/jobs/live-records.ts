/**
 * The hourly live-records job (10 s past every hour, after the candles job at 5 s): the
 * hour's candles (the feed's run, waited for), the signal scan, the hour's funding,
 * scoring, the paper trader, then the day roots, in that order in one run,
 * because each step reads what the one before wrote (the paper trader takes the signals
 * just recorded; a day is sealed only once its signals and paper trades are final). The
 * steps live in their own files (signal-scan.ts, signal-score.ts, paper-trader.ts,
 * day-roots.ts).
 * Every step is idempotent and catches up by itself, so a missed hour needs no replay:
 * the catch-up window only makes the latest missed run happen at start-up.
 */
import type { Clock } from '../clock'
import type { Db } from '../db'
import type { CandleFeed, FeedReport } from '../market/candle-feed'
import type { CandleStore } from '../market/candle-store'
import { HOUR_MS } from '../time'
import type { SeriesCache } from '../market/series'
import type { Universe } from '../market/universe'
import type { RunService } from '../runs/service'
import { paperLeafSource } from '../records/paper'
import { sealDays } from '../live/day-roots'
import { runPaper } from '../live/paper-trader'
import type { JobDefinition } from './scheduler'
import { scanSignals } from '../live/signal-scan'
import { scoreSignals } from '../live/signal-score'

export const LIVE_RECORDS_JOB = 'live-records'

export interface LiveRecordsDeps {
  db: Db
  clock: Clock
  store: CandleStore
  series: SeriesCache
  universe: Universe
  /** the run pipeline: the scan runs on its worker pool (absent: on this thread) */
  runs?: RunService
  /** the regime's recommended registry ids, the paper trader's fallback picks */
  regimeStrategies?: () => Promise<string[]>
  /** what brings the hour's candles (demo or exchange); absent: the store is static */
  feed?: CandleFeed
}

export function liveRecordsJob(deps: LiveRecordsDeps): JobDefinition {
  return {
    name: LIVE_RECORDS_JOB,
    cron: '10 0 * * * *',
    description: 'hourly: scan signals, score them, paper-trade the picks, seal finished Merkle days',
    slotOf: ms => `${LIVE_RECORDS_JOB}:${new Date(ms).toISOString().slice(0, 13)}`,
    catchUpMs: 2 * HOUR_MS,
    run: async ctx => {
      const fed = await feedStep(deps, 'candles', ctx.progress)
      const scan = await scanSignals(deps, ctx.yield)
      ctx.progress(`scan: ${scan.added} new signals (${scan.coins} coins × ${scan.strategies} strategies)`)
      await feedStep(deps, 'funding', ctx.progress)
      const score = await scoreSignals(deps, ctx.yield)
      ctx.progress(`score: ${score.scored} rows (${score.open} open, ${score.closed} closed, ${score.unscoreable} unscoreable)`)
      const paper = await runPaper(deps)
      ctx.progress(paper.waiting !== null ? `paper: waiting: ${paper.waiting}` : `paper: cycle ${paper.cycle}, ${paper.taken} taken, ${paper.closed} closed, ${paper.open} open`)
      const seal = await sealDays({ ...deps, leafSources: [paperLeafSource] }, ctx.yield)
      if (seal.sealed.length) ctx.progress(`sealed ${seal.sealed.join(', ')}`)
      return { counts: { candles: fed?.appended ?? 0, signals_added: scan.added, scored: score.scored, closed: score.closed, unscoreable: score.unscoreable, paper_taken: paper.taken, paper_closed: paper.closed, days_sealed: seal.sealed.length } }
    },
  }
}

/**
 * One half of the feed (it shares a run the candles job has in flight). A failing feed does
 * not stop the hour: the records are made from what the store holds, and the feed's own
 * job reports the failure and catches up.
 */
async function feedStep(deps: LiveRecordsDeps, half: 'candles' | 'funding', progress: (msg: string) => void): Promise<FeedReport | null> {
  if (!deps.feed) return null
  try {
    return await deps.feed[half](deps.clock.now())
  } catch (e) {
    progress(`${half}: ${deps.feed.source} failed (${e instanceof Error ? e.message : String(e)}); going on with the store as it is`)
    return null
  }
}
