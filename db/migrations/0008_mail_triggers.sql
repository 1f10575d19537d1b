-- A week's digest is frozen once queued: every subscriber of that week gets the same figures.
CREATE TRIGGER weekly_digests_no_update BEFORE UPDATE ON weekly_digests
BEGIN
  SELECT RAISE(ABORT, 'weekly_digests is append-only: a week''s digest is never rewritten');
END;
--> statement-breakpoint
CREATE TRIGGER weekly_digests_no_delete BEFORE DELETE ON weekly_digests
BEGIN
  SELECT RAISE(ABORT, 'weekly_digests is append-only: a week''s digest is never deleted');
END;
--> statement-breakpoint
-- INSERT OR REPLACE deletes without firing delete triggers (recursive_triggers off): a second
-- insert of a stored week is skipped instead, so the stored digest stands
CREATE TRIGGER weekly_digests_keep_first BEFORE INSERT ON weekly_digests
WHEN EXISTS (SELECT 1 FROM weekly_digests WHERE week = NEW.week)
BEGIN
  SELECT RAISE(IGNORE);
END;
