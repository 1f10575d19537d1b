import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { noCache } from '../../http/cache-control'
import { Detail } from '../../model/shared'
import { OptimizeRequest, OptimizeResponse, ScoreSessionRequest, ScoreSessionResponse, ValidateRequest, ValidateResponse } from './model'
import { runOptimize } from './optimize-service'
import { runScoreSession } from './score-session-service'
import { runValidate, type ResearchDeps } from './validate-service'

/** POST /simulate/validate, /simulate/optimize, /simulate/score-session: how much of a result is luck. */
export function researchModule(deps: AppDeps) {
  const services: ResearchDeps = { runs: deps.runs, universe: deps.universe, store: deps.store }
  return new Elysia({ name: 'research' })
    .post('/simulate/validate', ({ body, headers }) => runValidate(services, body, noCache(headers)), {
      body: ValidateRequest,
      response: { 200: ValidateResponse, 404: Detail },
      detail: {
        tags: ['research'],
        summary: 'Out-of-sample split and Monte Carlo of a strategy',
        description:
          'A registry `strategy` or a custom `entry` tree over at most 50 coins: in-sample vs out-of-sample figures with a verdict, a bootstrap of its trades and a random-entry null. docs/api-research.md.',
      },
    })
    .post('/simulate/optimize', ({ body }) => runOptimize(services, body), {
      body: OptimizeRequest,
      response: { 200: OptimizeResponse, 404: Detail },
      detail: {
        tags: ['research'],
        summary: 'SL/TP grid search (at most 36 cells) with the best cell’s deflated Sharpe',
        description: 'Every cell’s metrics as a matrix (rows SL, columns TP), the best cell by `objective`, and a warning when it is not significant after deflation for the grid size.',
      },
    })
    .post('/simulate/score-session', ({ body }) => runScoreSession(body), {
      body: ScoreSessionRequest,
      response: { 200: ScoreSessionResponse },
      detail: {
        tags: ['research'],
        summary: 'Score the hand-made trades of a replay session (stores nothing)',
        description: '`fee_pct` here is in percent of notional per side (0.05 = 0.05 %), unlike the fraction of /simulate. docs/api-research.md.',
      },
    })
}
