import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { InvalidRequest } from '../../runs/errors'
import { lookAheadProblems } from '../../strategies/validate'
import { BacktestRequest, BacktestResponse } from './model'
import { runBacktest } from './service'

const noCache = (h: Record<string, string | undefined>) => /no-cache|no-store/i.test(h['cache-control'] ?? '')

/** POST /backtest: a custom condition-tree strategy over a universe. */
export function backtestModule(deps: AppDeps) {
  return new Elysia({ name: 'backtest' }).post('/backtest', ({ body, headers }) => {
    // parsing: a tree that would read later bars is refused (422), never run (docs/conditions.md)
    const lookAhead = [...lookAheadProblems(body.entry, ['body', 'entry']), ...lookAheadProblems(body.exit_conditions, ['body', 'exit_conditions'])]
    if (lookAhead.length) throw new InvalidRequest(lookAhead)
    return runBacktest(deps.runs, body, noCache(headers))
  }, {
    body: BacktestRequest,
    response: BacktestResponse,
    detail: {
      tags: ['simulation'],
      summary: 'Backtest a custom strategy',
      description: 'HTTP 200 even when the strategy is invalid: then executed=false and validation_errors says why.',
    },
  })
}
