/**
 * Live records made before a browser test's server starts: the hourly job's steps (scan,
 * score, paper trader, day roots) run in this process on the test's DATA_DIR, hour by hour
 * on a ManualClock up to the current hour, so the page finds an active paper cycle with
 * positions and an equity history, and sealed Merkle days with leaves. The server started
 * afterwards reads the same database file.
 */
import { join } from 'node:path'
import { ManualClock } from '../../src/clock'
import { openDb } from '../../src/db'
import { sealDays } from '../../src/live/day-roots'
import { runPaper } from '../../src/live/paper-trader'
import { scanSignals } from '../../src/live/signal-scan'
import { scoreSignals } from '../../src/live/signal-score'
import { CandleStore } from '../../src/market/candle-store'
import { SeriesCache } from '../../src/market/series'
import { DAY_MS, HOUR_MS } from '../../src/time'
import { Universe } from '../../src/market/universe'
import { paperLeafSource } from '../../src/records/paper'

/**
 * Run the live-records steps for every hour of the last `days` days, 10 s past each hour as
 * the job does. The paper trader's picks are `strategies` (as the regime's fallback would
 * give them), so positions open without a published ranking.
 */
export async function recordLiveDays(dataDir: string, days: number, strategies: string[]): Promise<void> {
  const store = CandleStore.open(dataDir)
  const db = openDb(join(dataDir, 'perpsim.sqlite'))
  const clock = new ManualClock(0)
  const deps = { db, clock, store, series: new SeriesCache(store), universe: new Universe(store), regimeStrategies: async () => strategies }
  const lastHour = Math.floor(Date.now() / HOUR_MS) * HOUR_MS
  try {
    for (let t = lastHour - days * DAY_MS; t <= lastHour; t += HOUR_MS) {
      clock.set(t + 10_000)
      await scanSignals(deps)
      await scoreSignals(deps)
      await runPaper(deps)
      await sealDays({ ...deps, leafSources: [paperLeafSource] })
    }
  } finally {
    await db.close()
  }
}
