/**
 * The SQLite schema (drizzle). Changes go through `npm run db:generate`, which writes a
 * migration into db/migrations; migrations are applied at start-up (src/db.ts).
 */
import { integer, sqliteTable, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { primaryKey, real } from 'drizzle-orm/sqlite-core'

/** Normalised requests behind every result hash: /export/csv, /share and /og recompute from here. */
export const resultRequests = sqliteTable('result_requests', {
  hash: text('hash').primaryKey(),
  kind: text('kind').notNull(), // 'backtest' | 'simulate'
  request: text('request', { mode: 'json' }).notNull(),
  dataVersion: text('data_version').notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
})

/** Last good answer of every upstream (market, news, macro, ...), so offline answers survive a restart. */
export const upstreamSnapshots = sqliteTable('upstream_snapshots', {
  key: text('key').primaryKey(),
  source: text('source').notNull(),
  payload: text('payload', { mode: 'json' }).notNull(),
  fetchedAtMs: integer('fetched_at_ms').notNull(),
}, t => [index('upstream_snapshots_fetched').on(t.fetchedAtMs)])

/**
 * One row per run of a scheduled job. A slot (e.g. `rankings:2026-11-25`) is claimed by
 * inserting its row: the unique key (slot, attempt) makes a second claimer of the same
 * slot fail the insert and skip. A manual re-run (`cli jobs run`) takes the next attempt.
 */
export const jobRuns = sqliteTable('job_runs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  job: text('job').notNull(),
  slot: text('slot').notNull(),
  attempt: integer('attempt').notNull(),
  /** 'schedule' | 'catch-up' | 'manual' */
  trigger: text('trigger').notNull(),
  /** the cron instant the run stands for (epoch ms) */
  slotMs: integer('slot_ms').notNull(),
  startedAtMs: integer('started_at_ms').notNull(),
  /** null while the run is in progress */
  finishedAtMs: integer('finished_at_ms'),
  /** null while running; then 'ok' | 'failed' | 'skipped' */
  outcome: text('outcome'),
  error: text('error'),
  counts: text('counts', { mode: 'json' }).$type<Record<string, number>>(),
  /**
   * Who runs it (src/jobs/run-owner.ts): host name, pid and the scheduler's instance id;
   * null on rows written before migration 0009.
   */
  ownerHost: text('owner_host'),
  ownerPid: integer('owner_pid'),
  ownerInstance: text('owner_instance'),
  /** refreshed on the clock while the run is in progress; null on rows before migration 0009 */
  heartbeatMs: integer('heartbeat_ms'),
}, t => [uniqueIndex('job_runs_slot_attempt').on(t.slot, t.attempt), index('job_runs_job_slot_ms').on(t.job, t.slotMs)])

/**
 * The published daily ranking files: canonical JSON of every period × group of one ranking
 * date, with its sha256. Append-only: triggers (migration rankings_triggers) reject every
 * UPDATE and DELETE, so a cited file can never change.
 */
export const rankingDayFiles = sqliteTable('ranking_day_files', {
  /** ranking date, YYYY-MM-DD (UTC); the file covers the days before it */
  date: text('date').primaryKey(),
  sha256: text('sha256').notNull(),
  /** the file's exact bytes (UTF-8 canonical JSON) */
  body: text('body').notNull(),
  schemaVersion: text('schema_version').notNull(),
  generatedAtMs: integer('generated_at_ms').notNull(),
})

/**
 * Signals as the scanner recorded them (docs/signals.md): one row per (strategy,
 * timeframe, coin, signal bar), id `v1:<strategy>:<timeframe>:<coin>:<signal bar open ms>`.
 * Append-only (trigger): a recorded signal is never changed or removed.
 */
export const signals = sqliteTable('signals', {
  id: text('id').primaryKey(),
  strategy: text('strategy').notNull(),
  strategyName: text('strategy_name').notNull(),
  /** the strategy's status when the signal was recorded */
  status: text('status').notNull(),
  coin: text('coin').notNull(),
  direction: text('direction').notNull(),
  timeframe: text('timeframe').notNull(),
  /** open time of the signal bar (the bar whose close made the condition true) */
  signalBarMs: integer('signal_bar_ms').notNull(),
  /** the signal bar's close = the entry bar's open time */
  signalTimeMs: integer('signal_time_ms').notNull(),
  /** the entry bar's open: the trade model's entry price */
  entryPrice: real('entry_price').notNull(),
  slPct: real('sl_pct').notNull(),
  tpPct: real('tp_pct').notNull(),
  maxBars: integer('max_bars').notNull(),
  publishedAtMs: integer('published_at_ms').notNull(),
  /** recorded by the first-start backfill rather than the hourly scan */
  backfill: integer('backfill', { mode: 'boolean' }).notNull(),
}, t => [index('signals_time').on(t.signalTimeMs), index('signals_published').on(t.publishedAtMs)])

/**
 * The scorer's verdict on each signal (docs/signals.md): `open` rows are re-marked every
 * hour; a final row (tp, sl, timeout, liquidation, unscoreable) is never updated or
 * deleted (trigger). Cost inputs are frozen in the row when it is first written.
 */
export const scoredSignals = sqliteTable('scored_signals', {
  signalId: text('signal_id').primaryKey().references(() => signals.id),
  engine: text('engine').notNull(),
  status: text('status').notNull(),
  /** the trade model's precise exit reason (tp, sl, signal, timeout, liquidation); null while open */
  exitReason: text('exit_reason'),
  /** why a row is unscoreable */
  reason: text('reason'),
  entryTimeMs: integer('entry_time_ms').notNull(),
  entryPrice: real('entry_price').notNull(),
  /** open: gross reference move to the last completed close; closed: net of fees and funding */
  pnlPct: real('pnl_pct').notNull(),
  grossPct: real('gross_pct'),
  feePct: real('fee_pct'),
  fundingPct: real('funding_pct'),
  exitPrice: real('exit_price'),
  exitTimeMs: integer('exit_time_ms'),
  barsHeld: integer('bars_held'),
  slTpSameBar: integer('sl_tp_same_bar', { mode: 'boolean' }),
  feeFrac: real('fee_frac').notNull(),
  leverage: real('leverage').notNull(),
  mmrFrac: real('mmr_frac').notNull(),
  slPct: real('sl_pct').notNull(),
  tpPct: real('tp_pct').notNull(),
  maxBars: integer('max_bars').notNull(),
  fundingSource: text('funding_source').notNull(),
  fundingEvents: integer('funding_events'),
  fundingEventsReal: integer('funding_events_real'),
  /** close time of the last bar the scorer has seen for this row */
  markedThroughMs: integer('marked_through_ms').notNull(),
  updatedAtMs: integer('updated_at_ms').notNull(),
  /** when the row became final; null while open */
  finalizedAtMs: integer('finalized_at_ms'),
  /**
   * How the exit was found, for rows of an engine that replays minutes ('reference-engine-v4':
   * records/scoring-execution.ts): 'detail' (its bar replayed minute by minute) or 'bar' (the bar
   * rule: no ambiguity, or no minutes there); null while open, and on the rows of earlier engines.
   */
  exitResolution: text('exit_resolution'),
}, t => [index('scored_status').on(t.status), index('scored_exit').on(t.exitTimeMs), index('scored_finalized').on(t.finalizedAtMs)])

/**
 * Sealed Merkle day roots (docs/trust.md) with their leaves. Both are written once, in
 * one transaction, when the day is over and its leaves are final; triggers reject any
 * UPDATE or DELETE.
 */
export const dayRoots = sqliteTable('day_roots', {
  /** YYYYMMDD, UTC */
  day: text('day').primaryKey(),
  leafCount: integer('leaf_count').notNull(),
  root: text('root'),
  algorithm: text('algorithm').notNull(),
  sealedAtMs: integer('sealed_at_ms').notNull(),
})

export const dayLeaves = sqliteTable('day_leaves', {
  day: text('day').notNull().references(() => dayRoots.day),
  /** position in the day's tree */
  idx: integer('idx').notNull(),
  /** `scored_signal:<signal id>` or `paper_trade:<position id>` */
  recordId: text('record_id').notNull().unique(),
  leaf: text('leaf').notNull(),
  leafHash: text('leaf_hash').notNull(),
}, t => [primaryKey({ columns: [t.day, t.idx] }), index('day_leaves_hash').on(t.leafHash)])

/** The internal real-money NAV track, imported from CSV (`cli realtrack import`). */
export const realTrack = sqliteTable('real_track', {
  tMs: integer('t_ms').primaryKey(),
  nav: real('nav').notNull(),
  importedAtMs: integer('imported_at_ms').notNull(),
})

/** One row per (timeframe, newest signal bar) the scanner has evaluated: its watermark and warm-up evidence. */
export const signalScans = sqliteTable('signal_scans', {
  timeframe: text('timeframe').notNull(),
  signalBarMs: integer('signal_bar_ms').notNull(),
  scannedAtMs: integer('scanned_at_ms').notNull(),
  coins: integer('coins').notNull(),
  strategies: integer('strategies').notNull(),
  signalsFound: integer('signals_found').notNull(),
}, t => [primaryKey({ columns: [t.timeframe, t.signalBarMs] })])

/** Paper-trading cycles (docs/paper-trading.md): 30 days each; the next starts when one completes. */
export const paperCycles = sqliteTable('paper_cycles', {
  id: integer('id').primaryKey(),
  startMs: integer('start_ms').notNull(),
  lengthDays: integer('length_days').notNull(),
  startingCapital: real('starting_capital').notNull(),
  slots: integer('slots').notNull(),
  /** 'active' | 'complete' */
  status: text('status').notNull(),
  /** signals published up to here have been considered for entry */
  processedThroughMs: integer('processed_through_ms').notNull(),
  completedAtMs: integer('completed_at_ms'),
  finalEquity: real('final_equity'),
})

/** The strategies a cycle trades, picked once a day after the ranking (append-only). */
export const paperPicks = sqliteTable('paper_picks', {
  cycleId: integer('cycle_id').notNull().references(() => paperCycles.id),
  /** YYYY-MM-DD, UTC */
  day: text('day').notNull(),
  pickedAtMs: integer('picked_at_ms').notNull(),
  /** 'ranking' | 'regime' | 'none' */
  rule: text('rule').notNull(),
  rankingDate: text('ranking_date'),
  picks: text('picks', { mode: 'json' }).notNull().$type<PaperPick[]>(),
}, t => [primaryKey({ columns: [t.cycleId, t.day] })])

export interface PaperPick {
  configuration_id: string
  strategy: string
  timeframe: string
  sl_pct: number
  tp_pct: number
  max_bars: number
  profit_factor: number | null
  total_trades: number | null
}

/**
 * Paper positions: one per taken signal. `pending` until the entry bar is in the store,
 * `open` while the trade model runs, then final (tp, sl, timeout, liquidation, signal,
 * cycle_end, cancelled): a final row is never updated or deleted (trigger).
 */
export const paperPositions = sqliteTable('paper_positions', {
  id: text('id').primaryKey(),
  cycleId: integer('cycle_id').notNull().references(() => paperCycles.id),
  signalId: text('signal_id').notNull().references(() => signals.id),
  configurationId: text('configuration_id').notNull(),
  strategy: text('strategy').notNull(),
  coin: text('coin').notNull(),
  direction: text('direction').notNull(),
  timeframe: text('timeframe').notNull(),
  slPct: real('sl_pct').notNull(),
  tpPct: real('tp_pct').notNull(),
  maxBars: integer('max_bars').notNull(),
  feeFrac: real('fee_frac').notNull(),
  leverage: real('leverage').notNull(),
  mmrFrac: real('mmr_frac').notNull(),
  marginUsd: real('margin_usd').notNull(),
  /** the signal's reference entry (its entry bar's open) */
  referenceEntryPrice: real('reference_entry_price').notNull(),
  /** the open of the first bar opening at or after the signal's publication */
  entryTimeMs: integer('entry_time_ms').notNull(),
  entryPrice: real('entry_price'),
  status: text('status').notNull(),
  exitReason: text('exit_reason'),
  exitPrice: real('exit_price'),
  exitTimeMs: integer('exit_time_ms'),
  barsHeld: integer('bars_held'),
  pnlPct: real('pnl_pct'),
  pnlUsd: real('pnl_usd'),
  markPrice: real('mark_price'),
  unrealizedUsd: real('unrealized_usd'),
  markedThroughMs: integer('marked_through_ms').notNull(),
  openedAtMs: integer('opened_at_ms').notNull(),
  closedAtMs: integer('closed_at_ms'),
  /**
   * The execution model the position is priced with, frozen at its opening: 'reference-engine-v3' or
   * 'reference-engine-v4' (records/scoring-execution.ts: impact slippage, market take profit,
   * margin brackets; v4 adds minute detail and the mark price where stored); null for positions opened before it (taker fee only, flat margin).
   */
  engine: text('engine'),
  /** how the exit was found ('detail' or 'bar') for positions of 'reference-engine-v4' on; null while open and before it */
  exitResolution: text('exit_resolution'),
}, t => [index('paper_positions_cycle').on(t.cycleId, t.status)])

/** A cycle's equity at the end of each completed UTC day (append-only). */
export const paperHistory = sqliteTable('paper_history', {
  cycleId: integer('cycle_id').notNull().references(() => paperCycles.id),
  /** YYYY-MM-DD */
  date: text('date').notNull(),
  equity: real('equity').notNull(),
  openCount: integer('open_count').notNull(),
  closedCount: integer('closed_count').notNull(),
}, t => [primaryKey({ columns: [t.cycleId, t.date] })])

/** Weekly-alert subscribers (docs/mail.md): pending until the confirmation link is followed (double opt-in). */
export const subscribers = sqliteTable('subscribers', {
  /** normalised: trimmed, lower case */
  email: text('email').primaryKey(),
  lang: text('lang').notNull(), // 'en' | 'ko'
  status: text('status').notNull(), // 'pending' | 'active' | 'unsubscribed'
  createdAtMs: integer('created_at_ms').notNull(),
  updatedAtMs: integer('updated_at_ms').notNull(),
  confirmedAtMs: integer('confirmed_at_ms'),
  unsubscribedAtMs: integer('unsubscribed_at_ms'),
}, t => [index('subscribers_status').on(t.status)])

/** Secrets the service generates for itself at first start (never a default literal). */
export const serviceSecrets = sqliteTable('service_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
})

/** Every mail to send: one row per (kind, recipient, week), so a rerun never queues a mail twice. */
export const mailOutbox = sqliteTable('mail_outbox', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind').notNull(), // 'confirm' | 'weekly'
  recipient: text('recipient').notNull(),
  /** ISO week (YYYY-Www) the mail belongs to */
  week: text('week').notNull(),
  lang: text('lang').notNull(),
  status: text('status').notNull(), // 'pending' | 'sending' | 'sent' | 'failed'
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  nextAttemptAtMs: integer('next_attempt_at_ms').notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
  sentAtMs: integer('sent_at_ms'),
}, t => [uniqueIndex('mail_outbox_once').on(t.kind, t.recipient, t.week), index('mail_outbox_due').on(t.status, t.nextAttemptAtMs)])

/** What the weekly mail of a week says, frozen when the week's mails are queued (every recipient gets the same figures). */
export const weeklyDigests = sqliteTable('weekly_digests', {
  week: text('week').primaryKey(),
  payload: text('payload', { mode: 'json' }).notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
})

/**
 * The push feed (docs/events.md): one row per announced record, written in the same
 * transaction as the record it announces, so an event exists exactly when its record does.
 * `id` is the SSE event id: AUTOINCREMENT never reuses an id, and SQLite has one writer at a
 * time, so ids are handed out in commit order and a reader that has seen id n has seen every
 * committed event below n. Append-only (triggers, migration events_triggers).
 */
export const events = sqliteTable('events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** 'signal' | 'scored' | 'day_root' | 'ranking' | 'paper' */
  kind: text('kind').notNull(),
  createdAt: integer('created_at').notNull(),
  /** the strategy, coin and strategy status the record is about, for the stream's filters (null: not about one) */
  strategy: text('strategy'),
  coin: text('coin'),
  status: text('status'),
  /** canonical JSON of the record as the API serves it */
  payload: text('payload').notNull(),
}, t => [index('events_created').on(t.createdAt)])

/**
 * Where pushed events go (docs/events.md "Webhooks"): a signed webhook URL, a Telegram chat
 * or a Discord webhook, registered with the admin key. An endpoint that deliveries refer to
 * is disabled (disabled_at_ms set, its credentials erased), never deleted: its deliveries
 * stay as the record of what was sent where; one nothing refers to is deleted.
 */
export const pushEndpoints = sqliteTable('push_endpoints', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  sink: text('sink').notNull(), // 'webhook' | 'telegram' | 'discord'
  /** the webhook's URL, or the Discord webhook URL; null for Telegram */
  url: text('url'),
  /** the Standard Webhooks secret (whsec_…) of a webhook; null otherwise */
  secret: text('secret'),
  telegramBotToken: text('telegram_bot_token'),
  telegramChatId: text('telegram_chat_id'),
  /** the language of a Telegram or Discord message: 'en' | 'ko' */
  lang: text('lang').notNull(),
  /** filters, as the stream's (docs/events.md): an empty list lets every value through */
  kinds: text('kinds', { mode: 'json' }).$type<string[]>().notNull(),
  strategies: text('strategies', { mode: 'json' }).$type<string[]>().notNull(),
  coins: text('coins', { mode: 'json' }).$type<string[]>().notNull(),
  statuses: text('statuses', { mode: 'json' }).$type<string[]>().notNull(),
  createdAtMs: integer('created_at_ms').notNull(),
  /** the newest event when it was registered: it is sent the events after this one */
  afterEventId: integer('after_event_id').notNull(),
  disabledAtMs: integer('disabled_at_ms'),
  /** the receiver asked us to wait (429, an exhausted Discord bucket): nothing is sent to it before this */
  pausedUntilMs: integer('paused_until_ms').notNull().default(0),
  lastSuccessAtMs: integer('last_success_at_ms'),
  lastFailureAtMs: integer('last_failure_at_ms'),
  lastError: text('last_error'),
  /** failed attempts since the last success */
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  /** deliveries given up on (past the maximum age, or refused for good) */
  failedDeliveries: integer('failed_deliveries').notNull().default(0),
})

/**
 * The push outbox: one row per endpoint and event, written with the cursor in one
 * transaction; pending → sending (a lease: claimed_until_ms, owner) → delivered, or failed
 * past the maximum age (or at once when retrying cannot help), or cancelled when its
 * endpoint is removed. A finished row never changes (triggers, migration push_triggers).
 */
export const pushDeliveries = sqliteTable('push_deliveries', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  endpointId: integer('endpoint_id').notNull().references(() => pushEndpoints.id),
  eventId: integer('event_id').notNull().references(() => events.id),
  status: text('status').notNull(), // 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled'
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAtMs: integer('next_attempt_at_ms').notNull(),
  claimedUntilMs: integer('claimed_until_ms'),
  owner: text('owner'),
  createdAtMs: integer('created_at_ms').notNull(),
  deliveredAtMs: integer('delivered_at_ms'),
  /** the receiver's HTTP status of the last attempt (null: no answer) */
  lastStatus: integer('last_status'),
  lastError: text('last_error'),
}, t => [uniqueIndex('push_deliveries_once').on(t.endpointId, t.eventId), index('push_deliveries_due').on(t.status, t.nextAttemptAtMs)])

/** How far the outbox has read the events (one row): every event up to event_id has its deliveries written. */
export const pushCursor = sqliteTable('push_cursor', {
  name: text('name').primaryKey(),
  eventId: integer('event_id').notNull(),
})

/**
 * Research sweeps and walk-forward runs (docs/api-research.md, "Sweeps"): one row per run,
 * its request, state and progress while it runs; its answer (PBO, deflated Sharpe,
 * stability, or the walk-forward's folds) once it stops. A stopped run (done, cancelled,
 * failed) is never changed or removed (triggers in 0016_research_sweeps_triggers.sql).
 */
export const researchRuns = sqliteTable('research_runs', {
  id: text('id').primaryKey(),
  /** 'sweep' | 'walk_forward' */
  kind: text('kind').notNull(),
  /** who started it (the rate limiter's client key): the per-client limit of running sweeps */
  client: text('client').notNull(),
  /** the request as normalised JSON (the space expanded) */
  request: text('request').notNull(),
  /** 'queued' | 'running' | 'done' | 'cancelled' | 'failed' */
  state: text('state').notNull(),
  /** why it stopped, when cancelled or failed */
  reason: text('reason'),
  /** trials (and out-of-sample runs) planned and finished */
  planned: integer('planned').notNull(),
  finished: integer('finished').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  startedAt: integer('started_at'),
  finishedAt: integer('finished_at'),
  /** the API process running it (a process that finds a run of another process still running after a restart marks it failed: interrupted) */
  owner: text('owner').notNull(),
  /** the answer's computed parts as JSON, once stopped */
  result: text('result'),
}, t => [index('research_runs_client_state').on(t.client, t.state)])

/**
 * The ledger of a sweep (and of a walk-forward's folds): every trial run, with its
 * parameters, metrics, trade count and the hash of its exact request. Append-only: the
 * ledger's size is the n_trials of every deflated Sharpe the run reports.
 */
export const researchTrials = sqliteTable('research_trials', {
  runId: text('run_id').notNull(),
  /** from 0 in the order trials finished */
  trial: integer('trial').notNull(),
  /** the walk-forward fold (from 1); null for a sweep */
  fold: integer('fold'),
  /** the space's values, keyed by the dimensions' names (JSON) */
  params: text('params').notNull(),
  /** every scalar metric of /backtest (JSON) */
  metrics: text('metrics').notNull(),
  totalTrades: integer('total_trades').notNull(),
  /** null: fewer trades than min_trades */
  objectiveValue: real('objective_value'),
  requestHash: text('request_hash').notNull(),
  createdAt: integer('created_at').notNull(),
}, t => [primaryKey({ columns: [t.runId, t.trial] })])
