import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { noCache } from '../../http/cache-control'
import { checkedJson } from '../../http/checked-json'
import { Detail } from '../../model/shared'
import { BacktestRequest, BacktestResponse } from './model'
import { runBacktest } from './service'

/** POST /backtest: a custom condition-tree strategy over a universe. */
export function backtestModule(deps: AppDeps) {
  return new Elysia({ name: 'backtest' }).post('/backtest', ({ body, headers }) => runBacktest(deps.runs, body, noCache(headers)), {
    body: BacktestRequest,
    // a run's ~700 KB body: checked and encoded by the route's hook (src/http/checked-json.ts)
    ...checkedJson({ 200: BacktestResponse, 404: Detail }),
    detail: {
      tags: ['simulation'],
      summary: 'Backtest a custom strategy',
      description: 'HTTP 200 even when the strategy is invalid: then executed=false and validation_errors says why.',
    },
  })
}
