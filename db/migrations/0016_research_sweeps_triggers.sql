-- A sweep's ledger is the count behind every deflated Sharpe it reports: a trial, once
-- written, is never changed or removed. A research run may change while it runs (state,
-- progress); once stopped (done, cancelled, failed) it is a published record, and no run
-- is ever removed.
CREATE TRIGGER research_trials_no_update BEFORE UPDATE ON research_trials
BEGIN SELECT RAISE(ABORT, 'research_trials are append-only: a trial of the ledger is never changed'); END;
--> statement-breakpoint
CREATE TRIGGER research_trials_no_delete BEFORE DELETE ON research_trials
BEGIN SELECT RAISE(ABORT, 'research_trials are append-only: a trial of the ledger is never removed'); END;
--> statement-breakpoint
CREATE TRIGGER research_runs_stopped_no_update BEFORE UPDATE ON research_runs
WHEN OLD.state IN ('done', 'cancelled', 'failed')
BEGIN SELECT RAISE(ABORT, 'research_runs: a stopped run is never changed'); END;
--> statement-breakpoint
CREATE TRIGGER research_runs_no_delete BEFORE DELETE ON research_runs
BEGIN SELECT RAISE(ABORT, 'research_runs: a run is never removed'); END;
