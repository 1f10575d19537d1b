import { t } from 'elysia'

export const DateParams = t.Object({ date: t.String({ description: 'UTC day, YYYYMMDD' }) })
export const ProofQuery = t.Object({ leaf: t.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'leaf hash, 64 hex characters' }) })

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(x: T) => t.Union([x, t.Null()])

export const MerkleDay = t.Object({
  date: t.String(),
  leaf_count: t.Integer(),
  root: Nullable(t.String()),
  algorithm: t.String(),
  sealed: t.Boolean({ description: 'false: the day is not over or its records are not final yet; the root can still change' }),
  sealed_at: Nullable(t.String()),
})

export const MerkleLeaves = t.Object({
  date: t.String(),
  algorithm: t.String(),
  sealed: t.Boolean(),
  root: Nullable(t.String()),
  leaf_count: t.Integer(),
  leaves: t.Array(t.Object({ index: t.Integer(), record_id: t.String(), leaf: t.String({ description: 'canonical JSON: sorted keys, no whitespace' }), leaf_hash: t.String() })),
})

export const MerkleProof = t.Object({
  date: t.String(),
  algorithm: t.String(),
  sealed: t.Boolean(),
  root: t.String(),
  tree_size: t.Integer(),
  leaf_index: t.Integer(),
  leaf_hash: t.String(),
  leaf: t.String(),
  audit_path: t.Array(t.String(), { description: 'sibling hashes from the leaf up (RFC 6962 PATH)' }),
})

const Quantiles = t.Object({ median: Nullable(t.Number()), p90: Nullable(t.Number()), samples: t.Integer() })

export const TrustMetrics = t.Object({
  generated_at: t.String(),
  window: t.String(),
  signals_published_24h: t.Integer(),
  signals_published_7d: t.Integer(),
  publication_latency_s: t.Composite([Quantiles, t.Object({ measured: t.String() })]),
  scoring_coverage: Nullable(t.Number()),
  final_share: Nullable(t.Number()),
  unscoreable_share: Nullable(t.Number()),
  paper_vs_reference_slippage_pct: Quantiles,
  paper_positions_with_sl_tp_share: Nullable(t.Number()),
})

export const RealTrack = t.Object({
  points: t.Array(t.Object({ t: t.String(), nav: t.Number() })),
  count: t.Integer(),
  first: Nullable(t.String()),
  last: Nullable(t.String()),
  return_pct: Nullable(t.Number()),
  max_drawdown_pct: Nullable(t.Number()),
})

export const Checklist = t.Object({
  generated_at: t.String(),
  ready: t.Boolean(),
  passed: t.Integer(),
  total: t.Integer(),
  items: t.Array(t.Object({ id: t.String(), status: t.UnionEnum(['pass', 'fail']), value: t.Unknown(), threshold: t.String(), action: Nullable(t.String()) })),
})

