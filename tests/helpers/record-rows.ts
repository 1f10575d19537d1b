/**
 * A few rows in every table of the records, as raw SQL both SQLite and Postgres take (TRUE /
 * FALSE, JSON as text): the append-only tests touch them, the copy tests move them. Ids of
 * AUTOINCREMENT tables are given so both databases hold the same rows.
 */
import { sha256Hex } from '../../src/records/rankings/day-files'

/** a ranking day file body (its sha256 is stored with it, as the ranking job does) */
const DAY_FILE = '{"date":"2026-11-26","groups":[]}'

export const MS = 1795564800000

/** The same rows on both databases: enough of every table for each rule to have something to refuse. */
export const SEED = [
  `INSERT INTO signals (id, strategy, strategy_name, status, coin, direction, timeframe, signal_bar_ms, signal_time_ms, entry_price, sl_pct, tp_pct, max_bars, published_at_ms, backfill) VALUES
     ('s1', 'x', 'X', 'live', 'BTCUSDT', 'long', '1h', ${MS}, ${MS + 3600000}, 100.5, 2, 4, 24, ${MS + 3600000}, FALSE),
     ('s2', 'x', 'X', 'live', 'ETHUSDT', 'long', '1h', ${MS}, ${MS + 3600000}, 10.25, 2, 4, 24, ${MS + 3600000}, FALSE),
     ('s3', 'x', 'X', 'live', 'SOLUSDT', 'short', '1h', ${MS}, ${MS + 3600000}, 1.5, 2, 4, 24, ${MS + 3600000}, TRUE)`,
  `INSERT INTO scored_signals (signal_id, engine, status, entry_time_ms, entry_price, pnl_pct, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source, marked_through_ms, updated_at_ms, finalized_at_ms) VALUES
     ('s1', 'e1', 'open', ${MS}, 100.5, 0.5, 0.0005, 1, 0.004, 2, 4, 24, 'real', ${MS}, ${MS}, NULL),
     ('s2', 'e1', 'tp', ${MS}, 10.25, 3.9, 0.0005, 1, 0.004, 2, 4, 24, 'real', ${MS}, ${MS}, ${MS})`,
  `INSERT INTO day_roots (day, leaf_count, root, algorithm, sealed_at_ms) VALUES ('20261126', 2, 'abc', 'sha256', ${MS})`,
  `INSERT INTO day_leaves (day, idx, record_id, leaf, leaf_hash) VALUES ('20261126', 0, 'scored_signal:s2', 'l0', 'h0'), ('20261126', 1, 'paper_trade:p2', 'l1', 'h1')`,
  `INSERT INTO ranking_day_files (date, sha256, body, schema_version, generated_at_ms) VALUES ('2026-11-26', '${sha256Hex(DAY_FILE)}', '${DAY_FILE}', 'v1', ${MS})`,
  `INSERT INTO paper_cycles (id, start_ms, length_days, starting_capital, slots, status, processed_through_ms) VALUES (1, ${MS}, 30, 1000, 5, 'active', ${MS})`,
  `INSERT INTO paper_picks (cycle_id, day, picked_at_ms, rule, ranking_date, picks) VALUES (1, '2026-11-26', ${MS}, 'ranking', '2026-11-26', '[{"configuration_id":"c","strategy":"x","timeframe":"1h","sl_pct":2,"tp_pct":4,"max_bars":24,"profit_factor":1.37,"total_trades":null}]')`,
  `INSERT INTO paper_positions (id, cycle_id, signal_id, configuration_id, strategy, coin, direction, timeframe, sl_pct, tp_pct, max_bars, fee_frac, leverage, mmr_frac, margin_usd, reference_entry_price, entry_time_ms, status, marked_through_ms, opened_at_ms) VALUES
     ('p1', 1, 's1', 'c', 'x', 'BTCUSDT', 'long', '1h', 2, 4, 24, 0.0005, 1, 0.004, 200, 100.5, ${MS}, 'open', ${MS}, ${MS}),
     ('p2', 1, 's2', 'c', 'x', 'ETHUSDT', 'long', '1h', 2, 4, 24, 0.0005, 1, 0.004, 200, 10.25, ${MS}, 'tp', ${MS}, ${MS})`,
  `INSERT INTO paper_history (cycle_id, date, equity, open_count, closed_count) VALUES (1, '2026-11-26', 1003.9, 1, 1)`,
  `INSERT INTO weekly_digests (week, payload, created_at_ms) VALUES ('2026-W48', '{"a":1}', 1)`,
  `INSERT INTO events (id, kind, created_at, payload) VALUES (1, 'signal', ${MS}, '{}'), (2, 'scored', ${MS}, '{}')`,
  `INSERT INTO push_endpoints (id, sink, url, lang, kinds, strategies, coins, statuses, created_at_ms, after_event_id, disabled_at_ms) VALUES
     (1, 'webhook', 'http://127.0.0.1:9/a', 'en', '[]', '[]', '[]', '[]', ${MS}, 0, NULL),
     (2, 'webhook', NULL, 'en', '[]', '[]', '[]', '[]', ${MS}, 0, ${MS}),
     (3, 'webhook', 'http://127.0.0.1:9/c', 'en', '[]', '[]', '[]', '[]', ${MS}, 0, NULL)`,
  `INSERT INTO push_deliveries (id, endpoint_id, event_id, status, next_attempt_at_ms, created_at_ms, delivered_at_ms) VALUES
     (1, 1, 1, 'pending', ${MS}, ${MS}, NULL), (2, 1, 2, 'delivered', ${MS}, ${MS}, ${MS})`,
  `INSERT INTO push_cursor (name, event_id) VALUES ('outbox', 1)`,
  `INSERT INTO job_runs (id, job, slot, attempt, trigger, slot_ms, started_at_ms, counts, owner_pid) VALUES (3, 'rankings', 'rankings:2026-11-26', 1, 'schedule', ${MS}, ${MS}, '{"written":2,"coins":535}', 4242)`,
  `INSERT INTO subscribers (email, lang, status, created_at_ms, updated_at_ms) VALUES ('a@example.com', 'en', 'active', ${MS}, ${MS})`,
  `INSERT INTO real_track (t_ms, nav, imported_at_ms) VALUES (${MS}, 1000, ${MS})`,
  `INSERT INTO result_requests (hash, kind, request, data_version, created_at_ms) VALUES ('h1', 'simulate', '{"z":1,"a":[1.5,-0.25,1e-7],"s":"k\u00e9y"}', 'dv1', ${MS})`,
  `INSERT INTO upstream_snapshots (key, source, payload, fetched_at_ms) VALUES ('market', 'binance', '{"b":2,"a":1}', ${MS})`,
  `INSERT INTO signal_scans (timeframe, signal_bar_ms, scanned_at_ms, coins, strategies, signals_found) VALUES ('1h', ${MS}, ${MS + 1}, 535, 40, 3)`,
  `INSERT INTO service_secrets (name, value, created_at_ms) VALUES ('link', 'c2VjcmV0', ${MS})`,
  `INSERT INTO research_runs (id, kind, client, request, state, planned, finished, created_at, started_at, finished_at, owner, result) VALUES
     ('r1', 'sweep', 'c1', '{"space":{}}', 'running', 10, 3, ${MS}, ${MS}, NULL, 'host:1', NULL),
     ('r2', 'walk_forward', 'c1', '{"folds":3}', 'done', 6, 6, ${MS}, ${MS}, ${MS + 1}, 'host:1', '{"pbo":0.25}')`,
  `INSERT INTO research_trials (run_id, trial, fold, params, metrics, total_trades, objective_value, request_hash, created_at) VALUES
     ('r1', 0, NULL, '{"sl_pct":2}', '{"sharpe":1.1}', 40, 1.1, 'rh0', ${MS}), ('r2', 0, 1, '{"sl_pct":3}', '{"sharpe":0.4}', 3, NULL, 'rh1', ${MS})`,
  `INSERT INTO mail_outbox (id, kind, recipient, week, lang, status, next_attempt_at_ms, created_at_ms) VALUES (7, 'weekly', 'a@example.com', '2026-W48', 'en', 'pending', ${MS}, ${MS})`,
]
