import { Elysia } from 'elysia'
import type { AppDeps } from '../../deps'
import { adminOnly } from '../../http/admin-auth'
import { Detail } from '../../model/shared'
import { Checklist, DateParams, MerkleDay, MerkleLeaves, MerkleProof, ProofQuery, RealTrack, TrustMetrics } from './model'
import { paperFigures, paperLeafSource } from '../../records/paper'
import { JsonCache } from '../../ttl-cache'
import { TrustService } from './service'

/** how long /trust/metrics keeps an answer (its generated_at says when it was computed) */
export const METRICS_CACHE_MS = 60_000

/** /trust/* and /real-mode-checklist. */
export function trustModule(
  deps: AppDeps,
  service = new TrustService({ ...deps, leafSources: [paperLeafSource], paper: paperFigures(deps.db), adminKeyConfigured: deps.config.adminKey !== '', smtpConfigured: deps.config.mail.smtpUrl !== null }),
) {
  const admin = adminOnly(deps.config.adminKey)
  // a sealed day's leaves never change: kept until evicted; the metrics for a minute
  const sealedLeaves = new JsonCache(deps.clock, Infinity, 32)
  const metrics = new JsonCache(deps.clock, METRICS_CACHE_MS, 1)
  return new Elysia({ name: 'trust' })
    // a day that has not ended by the clock is a 404 ("not sealed yet"), never the empty root of a finished day
    .get('/trust/merkle/:date', ({ params }) => service.merkle(params.date), {
      params: DateParams,
      response: { 200: MerkleDay, 404: Detail },
      detail: { tags: ['trust'], summary: 'Merkle day root (RFC 6962, SHA-256) over the records that closed that UTC day' },
    })
    // a sealed day's bytes are cached: Elysia sends that Response as it is (typed as the body it holds)
    .get('/trust/merkle/:date/leaves', async ({ params }) => ((await service.isSealed(params.date)) ? ((await sealedLeaves.response(params.date, () => service.leaves(params.date))) as unknown as typeof MerkleLeaves.static) : service.leaves(params.date)), {
      params: DateParams,
      response: { 200: MerkleLeaves, 404: Detail },
      detail: { tags: ['trust'], summary: 'The canonical leaves of a day and their hashes' },
    })
    .get('/trust/merkle/:date/proof', ({ params, query }) => service.proof(params.date, query.leaf), {
      params: DateParams,
      query: ProofQuery,
      response: { 200: MerkleProof, 404: Detail },
      detail: { tags: ['trust'], summary: 'Audit path of one leaf to its day root' },
    })
    .get('/trust/metrics', () => metrics.response('metrics', () => service.metrics()), {
      response: TrustMetrics,
      detail: { tags: ['trust'], summary: 'Public execution-quality figures computed from the records (cached 1 minute)' },
    })
    .get('/trust/real-track', () => service.realTrack(), {
      beforeHandle: admin,
      response: { 200: RealTrack, 401: Detail, 403: Detail, 503: Detail },
      detail: { hide: true },
    })
    .get('/real-mode-checklist', () => service.checklist(), {
      beforeHandle: admin,
      response: { 200: Checklist, 401: Detail, 403: Detail, 503: Detail },
      detail: { hide: true },
    })
}
