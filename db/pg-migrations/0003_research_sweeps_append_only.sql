-- db/migrations/0016_research_sweeps_triggers.sql, as 0001_append_only.sql writes the others
-- (same names and messages, SQLSTATE 23000, TRUNCATE refused by a statement trigger).
CREATE TRIGGER research_trials_no_update BEFORE UPDATE ON research_trials
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('research_trials are append-only: a trial of the ledger is never changed');
--> statement-breakpoint
CREATE TRIGGER research_trials_no_delete BEFORE DELETE ON research_trials
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('research_trials are append-only: a trial of the ledger is never removed');
--> statement-breakpoint
CREATE TRIGGER research_trials_no_truncate BEFORE TRUNCATE ON research_trials
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('research_trials are append-only: a trial of the ledger is never removed');
--> statement-breakpoint
CREATE TRIGGER research_runs_stopped_no_update BEFORE UPDATE ON research_runs
  FOR EACH ROW WHEN (OLD.state IN ('done', 'cancelled', 'failed'))
  EXECUTE FUNCTION perpsim_reject('research_runs: a stopped run is never changed');
--> statement-breakpoint
CREATE TRIGGER research_runs_no_delete BEFORE DELETE ON research_runs
  FOR EACH ROW EXECUTE FUNCTION perpsim_reject('research_runs: a run is never removed');
--> statement-breakpoint
CREATE TRIGGER research_runs_no_truncate BEFORE TRUNCATE ON research_runs
  FOR EACH STATEMENT EXECUTE FUNCTION perpsim_reject('research_runs: a run is never removed');
