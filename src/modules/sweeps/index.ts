import { Elysia, t } from 'elysia'
import type { AppDeps } from '../../deps'
import { accepted } from '../../http/accepted'
import { clientOf } from '../../http/rate-limit'
import { Detail, RateLimited } from '../../model/shared'
import { ResearchAccepted, SweepId, SweepRequest, SweepResponse, SweepTrialsQuery, WalkForwardRequest, WalkForwardResponse } from './model'
import { ResearchRunner } from './runner'
import { cancelSweep, readSweep, startSweep, type SweepDeps } from './service'
import { sweepEvents } from './stream'
import { cancelWalkForward, readWalkForward, startWalkForward } from './walk-forward-service'

/** the sweeps' own refusal past their running limits (429 per client, 503 for the service), beside the rate limit's 429 */
const Refused = t.Object({ detail: t.String(), limit: t.Integer({ description: 'sweeps and walk-forward runs queued or running at once: per client (429) or in the service (503)' }), retry_after_seconds: t.Integer({ minimum: 1 }) })
const Refused429 = t.Union([RateLimited, Refused])
const EventsHeaders = t.Object({ 'last-event-id': t.Optional(t.String({ description: 'the last trial number received: the stream resumes after it' })) })

/** POST/GET/DELETE /research/sweeps and /research/walk-forward, and their GET …/{id}/events (docs/api-research.md). */
export function sweepsModule(deps: AppDeps) {
  const runner = new ResearchRunner({ db: deps.db, clock: deps.clock, shutdown: deps.shutdown })
  const services: SweepDeps = { runs: deps.runs, db: deps.db, clock: deps.clock, store: deps.store, runner }
  const client = (request: Request, ip: string | undefined) => clientOf(ip, request.headers.get('x-forwarded-for'), deps.config.trustProxy)
  return new Elysia({ name: 'sweeps' })
    .post('/research/sweeps', async ({ body, request, server }) => accepted(await startSweep(services, body, client(request, server?.requestIP(request)?.address))), {
      body: SweepRequest,
      response: { 202: ResearchAccepted, 404: Detail, 429: Refused429, 503: Refused },
      detail: {
        tags: ['research'],
        summary: 'Start a sweep: a space of parameters searched over a base run, every trial in a ledger, overfitting measured (PBO, deflated Sharpe, stability)',
        description: 'Answers 202 with the id at once; read it with GET /research/sweeps/{id}, follow it with GET /research/sweeps/{id}/events, cancel it with DELETE. docs/api-research.md, "Sweeps".',
      },
    })
    .get('/research/sweeps/:id', ({ params, query }) => readSweep(services, params.id, query), {
      params: SweepId,
      query: SweepTrialsQuery,
      response: { 200: SweepResponse, 404: Detail },
      detail: { tags: ['research'], summary: 'A sweep: state, progress, the best trial so far, the ledger paged, and once stopped its PBO, deflated Sharpe and stability' },
    })
    .delete('/research/sweeps/:id', ({ params }) => cancelSweep(services, params.id), {
      params: SweepId,
      response: { 200: SweepResponse, 404: Detail },
      detail: { tags: ['research'], summary: 'Cancel a sweep (its finished trials are kept; a stopped sweep is answered as it is)' },
    })
    .get('/research/sweeps/:id/events', ({ params, headers }) => sweepEvents({ db: deps.db, runner, shutdown: deps.shutdown }, params.id, headers['last-event-id']), {
      params: SweepId,
      headers: EventsHeaders,
      response: { 404: Detail },
      detail: { tags: ['research'], summary: 'A sweep as Server-Sent Events: each finished trial (id = its number), progress, and its state until it stops' },
    })
    .post('/research/walk-forward', async ({ body, request, server }) => accepted(await startWalkForward(services, body, client(request, server?.requestIP(request)?.address))), {
      body: WalkForwardRequest,
      response: { 202: ResearchAccepted, 404: Detail, 429: Refused429, 503: Refused },
      detail: {
        tags: ['research'],
        summary: 'Start a walk-forward optimisation: the space searched on each fold’s in-sample days, the choice run on the out-of-sample days that follow, the out-of-sample parts stitched',
        description: 'Answers 202 with the id at once; read it with GET /research/walk-forward/{id}. docs/api-research.md, "Walk-forward".',
      },
    })
    .get('/research/walk-forward/:id', ({ params }) => readWalkForward(services, params.id), {
      params: SweepId,
      response: { 200: WalkForwardResponse, 404: Detail },
      detail: { tags: ['research'], summary: 'A walk-forward run: state, progress, its folds (chosen parameters, in- and out-of-sample metrics), the stitched out-of-sample run, efficiency and parameter stability' },
    })
    .get('/research/walk-forward/:id/events', ({ params, headers }) => sweepEvents({ db: deps.db, runner, shutdown: deps.shutdown }, params.id, headers['last-event-id'], 'walk_forward'), {
      params: SweepId,
      headers: EventsHeaders,
      response: { 404: Detail },
      detail: { tags: ['research'], summary: 'A walk-forward run as Server-Sent Events: each finished in-sample trial (id = its number), progress, and its state until it stops' },
    })
    .delete('/research/walk-forward/:id', ({ params }) => cancelWalkForward(services, params.id), {
      params: SweepId,
      response: { 200: WalkForwardResponse, 404: Detail },
      detail: { tags: ['research'], summary: 'Cancel a walk-forward run (what finished is kept)' },
    })
}
