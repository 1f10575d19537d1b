/**
 * POST /research/sweeps and POST /research/walk-forward (issue 28, docs/api-research.md):
 * a base run (every /backtest setting, or a registry strategy with them, at the body's top
 * level), a space of
 * parameters searched by grid or at random, an objective; answered 202 with an id, read
 * with GET, followed with Server-Sent Events, cancelled with DELETE.
 */
import { t } from 'elysia'
import { BacktestRequest, Tree } from '../../model/backtest-request'
import { DeflatedSharpeInfo, RunResultBody } from '../../model/shared'

/** Objectives a sweep may maximise: metrics of /backtest where higher is better. */
export const SWEEP_OBJECTIVES = [
  'sharpe_ratio',
  'sortino_ratio',
  'calmar_ratio',
  'profit_factor',
  'total_return_pct',
  'total_return_pct_portfolio',
  'expectancy',
  'win_rate',
  'recovery_factor',
] as const

/**
 * The base run: every /backtest setting (a setting added to /backtest is taken here too),
 * with the strategy given either as a custom `entry` tree or as a registry `strategy` id.
 * With `strategy`, the registry's tree, indicators and direction are used and sl_pct,
 * tp_pct and max_bars default to the strategy's; with `entry` they default as /backtest's.
 */
export const SweepBase = t.Composite(
  [
    t.Omit(BacktestRequest, ['entry', 'name', 'indicators', 'direction', 'sl_pct', 'tp_pct', 'max_bars']),
    t.Object({
      strategy: t.Optional(t.String({ minLength: 1, maxLength: 100, description: 'registry id (GET /strategies); give this or `entry`' })),
      entry: t.Optional(Tree),
      name: t.Optional(t.String({ maxLength: 100, description: 'custom tree: default Custom Strategy' })),
      indicators: t.Optional(t.Record(t.String(), t.Record(t.String(), t.Number()), { description: 'custom tree: indicator id -> params (default bb, ema, volume, candle at their defaults)' })),
      direction: t.Optional(t.Union([t.Literal('short'), t.Literal('long')], { description: 'custom tree: default short' })),
      sl_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 50, description: 'default: the strategy default (custom tree: 10)' })),
      tp_pct: t.Optional(t.Number({ minimum: 0.5, maximum: 100, description: 'default: the strategy default (custom tree: 8)' })),
      max_bars: t.Optional(t.Integer({ minimum: 1, maximum: 168, description: 'default: the strategy default (custom tree: 48)' })),
    }),
  ],
  { description: 'the base run: a /backtest body whose strategy is a custom `entry` tree or a registry `strategy` id' },
)

export const SpaceDimension = t.Object(
  {
    path: t.String({
      minLength: 1,
      maxLength: 200,
      description:
        'what varies: sl_pct, tp_pct, max_bars, timeframe, or a numeric leaf of the strategy by path: entry.conditions[1].value, exit_conditions.conditions[0].value.mult, indicators.bb.period',
    }),
    name: t.Optional(t.String({ minLength: 1, maxLength: 60, description: 'its key in `params` (default: the path)' })),
    values: t.Optional(t.Array(t.Union([t.Number(), t.String({ maxLength: 10 })]), { minItems: 1, maxItems: 1000, description: 'the values tried (timeframe: its names, e.g. ["1H", "4H"])' })),
    min: t.Optional(t.Number({ description: 'a range: min, min + step, … up to max (inclusive); give min, max and step, or values' })),
    max: t.Optional(t.Number()),
    step: t.Optional(t.Number({ description: 'greater than 0' })),
  },
  { description: 'one parameter of the space: a list of values, or a range with a step' },
)

const searchFields = {
  space: t.Array(SpaceDimension, { minItems: 1, maxItems: 8 }),
  method: t.UnionEnum(['grid', 'random'], { default: 'grid', description: 'grid: every combination; random: `budget` combinations drawn with `seed`' }),
  seed: t.Integer({ minimum: 0, maximum: 4294967295, default: 0, description: 'random: the draw’s seed' }),
  budget: t.Optional(t.Integer({ minimum: 1, description: 'random: trials drawn (distinct combinations, at most the grid size); required with random' })),
  objective: t.UnionEnum([...SWEEP_OBJECTIVES], { default: 'sharpe_ratio', description: 'the metric maximised' }),
  min_trades: t.Integer({ minimum: 0, maximum: 1_000_000, default: 30, description: 'a trial with fewer trades has no objective value (it cannot be chosen)' }),
}

/**
 * The base run's fields sit at the top level of the body, beside the search's (as
 * /simulate/optimize's do): Elysia fills the defaults of a body's own fields only.
 */
export const SweepRequest = t.Composite([
  SweepBase,
  t.Object({
    ...searchFields,
    pbo_blocks: t.Integer({ minimum: 2, maximum: 16, default: 16, description: 'S, the even number of blocks of days of the CSCV (docs/statistics.md)' }),
  }),
])

export const SweepState = t.UnionEnum(['queued', 'running', 'done', 'cancelled', 'failed'])

/** The answer of POST /research/sweeps and /research/walk-forward (202). */
export const ResearchAccepted = t.Object({
  id: t.String(),
  state: SweepState,
  n_planned: t.Integer({ description: 'trials to run (a walk-forward: folds × trials, and each fold’s out-of-sample run)' }),
  links: t.Object({ self: t.String(), events: t.String({ description: 'its Server-Sent Events stream' }) }),
})

export const SweepId = t.Object({ id: t.String({ pattern: '^[a-z0-9-]{1,64}$' }) })

export const SweepTrialsQuery = t.Object({
  offset: t.Integer({ minimum: 0, default: 0 }),
  limit: t.Integer({ minimum: 0, maximum: 1000, default: 100 }),
  sort: t.UnionEnum(['trial', 'objective'], { default: 'trial', description: 'trial: in the order run; objective: best first (trials without a value last)' }),
})

const Params = t.Record(t.String(), t.Union([t.Number(), t.String()]), { description: 'the space’s values of the trial, keyed by the dimensions’ names' })

/** Every scalar metric of /backtest, for one trial. */
export const TrialMetrics = t.Record(t.String(), t.Union([t.Number(), t.Boolean(), t.Null()]), {
  description: 'every scalar metric of /backtest (total_trades, win_rate, profit_factor, sharpe_ratio, max_drawdown_pct, …)',
})

export const SweepTrial = t.Object({
  trial: t.Integer({ description: 'its number in the ledger, from 0, in the order trials finished' }),
  params: Params,
  total_trades: t.Integer(),
  objective_value: t.Union([t.Number(), t.Null()], { description: 'null: fewer than min_trades trades' }),
  metrics: TrialMetrics,
  request_hash: t.String({ description: 'sha256 of the trial’s exact run (as result_hash) and the data version' }),
})

const Progress = t.Object({ done: t.Integer(), total: t.Integer(), pct: t.Number() })

export const PboReport = t.Object({
  method: t.Literal('cscv'),
  pbo: t.Number({ description: 'share of the CSCV splits where the in-sample best trial ranks at or below the median out of sample' }),
  blocks: t.Integer({ description: 'S' }),
  combinations: t.Integer({ description: 'C(S, S/2) splits' }),
  trials: t.Integer({ description: 'trials in the matrix (every trial of the ledger)' }),
  days: t.Integer({ description: 'rows of the matrix (days)' }),
  performance: t.Literal('sharpe_ratio'),
  logit_median: t.Union([t.Number(), t.Null()], { description: 'median of the logits λ (negative: the in-sample winner is usually below the median out of sample)' }),
})

export const StabilityReport = t.Object({
  score: t.Union([t.Number(), t.Null()], { description: 'mean objective of the best trial’s neighbours over its own objective (1: a plateau; near 0 or negative: a spike); null without neighbours or with a best objective ≤ 0' }),
  neighbours: t.Integer({ description: 'trials one step from the best in each dimension at most (Chebyshev distance 1 on the space’s value lists)' }),
  neighbours_with_value: t.Integer(),
  mean_objective: t.Union([t.Number(), t.Null()]),
  worst_objective: t.Union([t.Number(), t.Null()]),
  drop_pct: t.Union([t.Number(), t.Null()], { description: '100 × (best − mean of the neighbours) / |best|' }),
})

export const SweepDeflatedSharpe = t.Composite([
  DeflatedSharpeInfo,
  t.Object({ trial: t.Integer({ description: 'the trial deflated: the best' }), haircut_pct: t.Union([t.Number(), t.Null()]), significant: t.Boolean({ description: 'dsr ≥ 0.95' }) }),
])

export const SweepBest = t.Object({
  trial: t.Integer(),
  params: Params,
  objective_value: t.Number(),
  metrics: TrialMetrics,
  request_hash: t.String(),
})

const SpaceEcho = t.Array(t.Object({ name: t.String(), path: t.String(), values: t.Array(t.Union([t.Number(), t.String()])) }))

const UniverseEcho = t.Object({
  symbols: t.Array(t.String()),
  coins_used: t.Integer(),
  start_date: t.Union([t.String(), t.Null()]),
  end_date: t.Union([t.String(), t.Null()]),
  timeframe: t.String(),
})

export const SweepResponse = t.Object({
  id: t.String(),
  state: SweepState,
  reason: t.Union([t.String(), t.Null()], { description: 'why it stopped when cancelled or failed (e.g. "failed: interrupted" after a restart)' }),
  created_at: t.String(),
  started_at: t.Union([t.String(), t.Null()]),
  finished_at: t.Union([t.String(), t.Null()]),
  progress: Progress,
  n_trials: t.Integer({ description: 'the ledger’s size: the n_trials of every deflated Sharpe reported' }),
  method: t.String(),
  seed: t.Integer(),
  objective: t.String(),
  min_trades: t.Integer(),
  space: SpaceEcho,
  universe: UniverseEcho,
  best: t.Union([SweepBest, t.Null()], { description: 'the trial with the highest objective so far (ties: the earliest)' }),
  trials: t.Object({ offset: t.Integer(), limit: t.Integer(), total: t.Integer(), sort: t.String(), items: t.Array(SweepTrial) }),
  pbo: t.Union([PboReport, t.Null()], { description: 'when finished (done, or stopped with at least 2 trials)' }),
  deflated_sharpe: t.Union([SweepDeflatedSharpe, t.Null()]),
  stability: t.Union([StabilityReport, t.Null()]),
})

export const WalkForwardRequest = t.Composite([
  SweepBase,
  t.Object({
  ...searchFields,
  mode: t.UnionEnum(['anchored', 'rolling'], { default: 'rolling', description: 'anchored: every in-sample part starts at the first day; rolling: it is in_sample_days long' }),
  in_sample_days: t.Integer({ minimum: 7, maximum: 3650 }),
  out_of_sample_days: t.Integer({ minimum: 1, maximum: 3650 }),
  folds: t.Integer({ minimum: 1, maximum: 24 }),
  purge_days: t.Integer({ minimum: 0, maximum: 365, default: 0, description: 'days left out between each in-sample part and its out-of-sample part' }),
  }),
])

const FoldMetrics = t.Union([TrialMetrics, t.Null()])

export const WalkForwardFold = t.Object({
  fold: t.Integer({ description: 'from 1' }),
  in_sample: t.Object({
    start_date: t.String(),
    end_date: t.String(),
    objective_value: t.Union([t.Number(), t.Null()]),
    metrics: FoldMetrics,
    trials: t.Integer(),
    equity_curve: t.Array(t.Object({ t: t.String({ format: 'date' }), return_pct: t.Number() }), {
      description: 'the chosen trial’s in-sample portfolio, day by day: return % since the part’s start (empty without a choice)',
    }),
  }),
  out_of_sample: t.Object({ start_date: t.String(), end_date: t.String(), objective_value: t.Union([t.Number(), t.Null()]), metrics: FoldMetrics }),
  params: t.Union([Params, t.Null()], { description: 'the in-sample best; null when no trial reached min_trades (the fold then trades nothing out of sample)' }),
})

export const WalkForwardResponse = t.Object({
  id: t.String(),
  state: SweepState,
  reason: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
  started_at: t.Union([t.String(), t.Null()]),
  finished_at: t.Union([t.String(), t.Null()]),
  progress: Progress,
  n_trials: t.Integer({ description: 'in-sample trials run over all folds' }),
  mode: t.String(),
  objective: t.String(),
  min_trades: t.Integer(),
  space: SpaceEcho,
  universe: UniverseEcho,
  folds: t.Array(WalkForwardFold),
  out_of_sample: t.Union([RunResultBody, t.Null()], {
    description: 'the folds’ out-of-sample trades stitched into one portfolio, with every /backtest metric and statistic (total_trades included); its settings echo the first fold’s parameters',
  }),
  walk_forward_efficiency: t.Union([t.Number(), t.Null()], { description: 'mean out-of-sample objective over mean in-sample objective of the folds with both' }),
  parameter_stability: t.Union(
    [
      t.Object({
        score: t.Number({ description: '1 − the mean over dimensions of the chosen values’ spread (distinct index steps / (values − 1)); 1: the same choice in every fold' }),
        by_parameter: t.Record(t.String(), t.Object({ distinct: t.Integer(), values: t.Array(t.Union([t.Number(), t.String(), t.Null()])), spread: t.Number() })),
      }),
      t.Null(),
    ],
    { description: 'how much the chosen parameters move from fold to fold' },
  ),
})
