/**
 * Demo mode: a new synthetic candle per coin every hour (5 s past the hour, once the hour
 * has closed), so signals, scoring and paper trading move as they would live. The append
 * itself catches up every hour the store is missing, so the job needs no catch-up window.
 */
import type { Clock } from '../clock'
import type { Logger } from '../log'
import type { CandleStore } from '../market/candle-store'
import { appendDemoCandles } from '../market/synthetic'
import type { JobDefinition } from './scheduler'

export function demoCandlesJob(deps: { store: CandleStore; clock: Clock; log: Logger; seed: number }): JobDefinition {
  return {
    name: 'demo-candles',
    cron: '5 0 * * * *',
    description: 'demo mode: append the synthetic candles of the hour that just closed',
    run: async () => {
      const added = appendDemoCandles(deps.store, deps.clock.now(), deps.store.syntheticSeed() ?? deps.seed)
      if (added > 0) deps.log.info(`demo: appended ${added} candles`)
      return { counts: { candles: added } }
    },
  }
}
