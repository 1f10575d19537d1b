-- A day's leaves are the rows that closed or became final that day: read on the exit and
-- finalization time indexes instead of scanning every scored row (src/records/signals.ts).
CREATE INDEX `scored_finalized` ON `scored_signals` (`finalized_at_ms`);