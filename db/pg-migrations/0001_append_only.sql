-- The append-only rules of the published records, as the SQLite migrations
-- (db/migrations/*_triggers.sql) write them, trigger for trigger with the same names and
-- messages; every refusal raises SQLSTATE 23000 (integrity_constraint_violation), which
-- drizzle puts in DrizzleQueryError.cause.code. Postgres additions:
-- - TRUNCATE fires no row trigger, so every table with a DELETE trigger (conditional or
--   not) also refuses TRUNCATE with a statement trigger (`<table>_no_truncate`);
-- - a trigger's WHEN cannot hold a subquery, so the four SQLite BEFORE INSERT triggers that
--   look at other rows are functions of their own;
-- - `IS NOT` between values is `IS DISTINCT FROM`.
CREATE FUNCTION perpsim_reject() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
END $$;
--> statement-breakpoint

-- 0002_rankings_triggers.sql
CREATE TRIGGER ranking_day_files_no_update BEFORE UPDATE ON ranking_day_files
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('ranking_day_files is append-only: a published day file is never rewritten');
--> statement-breakpoint
CREATE TRIGGER ranking_day_files_no_delete BEFORE DELETE ON ranking_day_files
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('ranking_day_files is append-only: a published day file is never deleted');
--> statement-breakpoint
CREATE TRIGGER ranking_day_files_no_truncate BEFORE TRUNCATE ON ranking_day_files
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('ranking_day_files is append-only: a published day file is never deleted');
--> statement-breakpoint

-- 0004_signals_trust_triggers.sql
CREATE TRIGGER signals_no_update BEFORE UPDATE ON signals
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('signals are append-only: a recorded signal is never changed');
--> statement-breakpoint
CREATE TRIGGER signals_no_delete BEFORE DELETE ON signals
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('signals are append-only: a recorded signal is never removed');
--> statement-breakpoint
CREATE TRIGGER signals_no_truncate BEFORE TRUNCATE ON signals
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('signals are append-only: a recorded signal is never removed');
--> statement-breakpoint
CREATE TRIGGER scored_signals_final_no_update BEFORE UPDATE ON scored_signals
  FOR EACH ROW WHEN (OLD.status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable'))
  EXECUTE FUNCTION perpsim_reject('finalized scored signals are never rewritten');
--> statement-breakpoint
CREATE TRIGGER scored_signals_final_no_delete BEFORE DELETE ON scored_signals
  FOR EACH ROW WHEN (OLD.status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable'))
  EXECUTE FUNCTION perpsim_reject('finalized scored signals are never deleted');
--> statement-breakpoint
-- a TRUNCATE would take the final rows with the open ones
CREATE TRIGGER scored_signals_no_truncate BEFORE TRUNCATE ON scored_signals
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('finalized scored signals are never deleted');
--> statement-breakpoint
CREATE TRIGGER scored_signals_engine_fixed
  BEFORE UPDATE OF engine, signal_id, entry_time_ms, entry_price, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source ON scored_signals
  FOR EACH ROW WHEN (NEW.engine IS DISTINCT FROM OLD.engine OR NEW.signal_id IS DISTINCT FROM OLD.signal_id
    OR NEW.entry_time_ms IS DISTINCT FROM OLD.entry_time_ms OR NEW.entry_price IS DISTINCT FROM OLD.entry_price
    OR NEW.fee_frac IS DISTINCT FROM OLD.fee_frac OR NEW.leverage IS DISTINCT FROM OLD.leverage
    OR NEW.mmr_frac IS DISTINCT FROM OLD.mmr_frac OR NEW.sl_pct IS DISTINCT FROM OLD.sl_pct
    OR NEW.tp_pct IS DISTINCT FROM OLD.tp_pct OR NEW.max_bars IS DISTINCT FROM OLD.max_bars
    OR NEW.funding_source IS DISTINCT FROM OLD.funding_source)
  EXECUTE FUNCTION perpsim_reject('the frozen inputs and engine label of a scored signal never change');
--> statement-breakpoint
CREATE TRIGGER day_roots_no_update BEFORE UPDATE ON day_roots
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a sealed day root never changes');
--> statement-breakpoint
CREATE TRIGGER day_roots_no_delete BEFORE DELETE ON day_roots
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a sealed day root is never removed');
--> statement-breakpoint
CREATE TRIGGER day_roots_no_truncate BEFORE TRUNCATE ON day_roots
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('a sealed day root is never removed');
--> statement-breakpoint
CREATE TRIGGER day_leaves_no_update BEFORE UPDATE ON day_leaves
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a sealed leaf never changes');
--> statement-breakpoint
CREATE TRIGGER day_leaves_no_delete BEFORE DELETE ON day_leaves
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a sealed leaf is never removed');
--> statement-breakpoint
CREATE TRIGGER day_leaves_no_truncate BEFORE TRUNCATE ON day_leaves
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('a sealed leaf is never removed');
--> statement-breakpoint
-- positions 0 .. leaf_count-1 only, each once (primary key (day, idx)): a sealed day is full.
-- As in SQLite, a leaf of a day with no root passes here (the foreign key refuses it).
CREATE FUNCTION day_leaves_only_while_sealing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.idx < 0 OR NEW.idx >= (SELECT leaf_count FROM day_roots WHERE day = NEW.day) THEN
    RAISE EXCEPTION 'a sealed day takes no further leaves' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER day_leaves_only_while_sealing BEFORE INSERT ON day_leaves
  FOR EACH ROW EXECUTE FUNCTION day_leaves_only_while_sealing();
--> statement-breakpoint
-- SQLite needs these against INSERT OR REPLACE; here a plain insert of a stored key fails on
-- the primary key anyway, ON CONFLICT DO UPDATE meets the UPDATE triggers, and these make
-- ON CONFLICT DO NOTHING on a final row an error too, as INSERT OR IGNORE is in SQLite
CREATE FUNCTION scored_signals_final_no_replace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM scored_signals WHERE signal_id = NEW.signal_id AND status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable')) THEN
    RAISE EXCEPTION 'finalized scored signals are never rewritten' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER scored_signals_final_no_replace BEFORE INSERT ON scored_signals
  FOR EACH ROW EXECUTE FUNCTION scored_signals_final_no_replace();
--> statement-breakpoint
CREATE FUNCTION day_roots_no_replace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM day_roots WHERE day = NEW.day) THEN
    RAISE EXCEPTION 'a sealed day root never changes' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER day_roots_no_replace BEFORE INSERT ON day_roots
  FOR EACH ROW EXECUTE FUNCTION day_roots_no_replace();
--> statement-breakpoint

-- 0006_paper_triggers.sql
CREATE TRIGGER paper_positions_final_no_update BEFORE UPDATE ON paper_positions
  FOR EACH ROW WHEN (OLD.status NOT IN ('pending', 'open'))
  EXECUTE FUNCTION perpsim_reject('closed paper positions are never rewritten');
--> statement-breakpoint
CREATE TRIGGER paper_positions_final_no_delete BEFORE DELETE ON paper_positions
  FOR EACH ROW WHEN (OLD.status NOT IN ('pending', 'open'))
  EXECUTE FUNCTION perpsim_reject('closed paper positions are never deleted');
--> statement-breakpoint
CREATE TRIGGER paper_positions_no_truncate BEFORE TRUNCATE ON paper_positions
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('closed paper positions are never deleted');
--> statement-breakpoint
CREATE TRIGGER paper_picks_no_update BEFORE UPDATE ON paper_picks
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a day''s paper picks never change');
--> statement-breakpoint
CREATE TRIGGER paper_picks_no_delete BEFORE DELETE ON paper_picks
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('a day''s paper picks are never removed');
--> statement-breakpoint
CREATE TRIGGER paper_picks_no_truncate BEFORE TRUNCATE ON paper_picks
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('a day''s paper picks are never removed');
--> statement-breakpoint
CREATE TRIGGER paper_history_no_update BEFORE UPDATE ON paper_history
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('paper history rows never change');
--> statement-breakpoint
CREATE TRIGGER paper_history_no_delete BEFORE DELETE ON paper_history
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('paper history rows are never removed');
--> statement-breakpoint
CREATE TRIGGER paper_history_no_truncate BEFORE TRUNCATE ON paper_history
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('paper history rows are never removed');
--> statement-breakpoint

-- 0008_mail_triggers.sql
CREATE TRIGGER weekly_digests_no_update BEFORE UPDATE ON weekly_digests
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('weekly_digests is append-only: a week''s digest is never rewritten');
--> statement-breakpoint
CREATE TRIGGER weekly_digests_no_delete BEFORE DELETE ON weekly_digests
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('weekly_digests is append-only: a week''s digest is never deleted');
--> statement-breakpoint
CREATE TRIGGER weekly_digests_no_truncate BEFORE TRUNCATE ON weekly_digests
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('weekly_digests is append-only: a week''s digest is never deleted');
--> statement-breakpoint
-- a second insert of a stored week is skipped (SQLite's RAISE(IGNORE)), so the stored digest stands
CREATE FUNCTION weekly_digests_keep_first() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM weekly_digests WHERE week = NEW.week) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER weekly_digests_keep_first BEFORE INSERT ON weekly_digests
  FOR EACH ROW EXECUTE FUNCTION weekly_digests_keep_first();
--> statement-breakpoint

-- 0012_events_triggers.sql
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('events are append-only: a published event is never changed');
--> statement-breakpoint
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('events are append-only: a published event is never removed');
--> statement-breakpoint
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('events are append-only: a published event is never removed');
--> statement-breakpoint

-- 0014_push_triggers.sql
CREATE TRIGGER push_deliveries_final_no_update BEFORE UPDATE ON push_deliveries
  FOR EACH ROW WHEN (OLD.status IN ('delivered', 'failed', 'cancelled'))
  EXECUTE FUNCTION perpsim_reject('a finished push delivery is never changed');
--> statement-breakpoint
CREATE TRIGGER push_deliveries_no_delete BEFORE DELETE ON push_deliveries
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('push deliveries are never removed');
--> statement-breakpoint
CREATE TRIGGER push_deliveries_no_truncate BEFORE TRUNCATE ON push_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('push deliveries are never removed');
--> statement-breakpoint
CREATE TRIGGER push_cursor_forward_only BEFORE UPDATE ON push_cursor
  FOR EACH ROW WHEN (NEW.event_id < OLD.event_id)
  EXECUTE FUNCTION perpsim_reject('the push cursor never moves back');
--> statement-breakpoint
CREATE TRIGGER push_cursor_no_delete BEFORE DELETE ON push_cursor
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('the push cursor is never removed');
--> statement-breakpoint
CREATE TRIGGER push_cursor_no_truncate BEFORE TRUNCATE ON push_cursor
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('the push cursor is never removed');
--> statement-breakpoint
CREATE TRIGGER push_endpoints_disabled_stays BEFORE UPDATE ON push_endpoints
  FOR EACH ROW WHEN (OLD.disabled_at_ms IS NOT NULL AND NEW.disabled_at_ms IS NULL)
  EXECUTE FUNCTION perpsim_reject('a removed push endpoint is never enabled again');
