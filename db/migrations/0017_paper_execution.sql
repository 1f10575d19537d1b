ALTER TABLE `paper_positions` ADD `engine` text;
--> statement-breakpoint
-- the execution model a position was opened with is never changed: positions opened before it keep the old one (docs/paper-trading.md)
CREATE TRIGGER paper_positions_engine_frozen BEFORE UPDATE OF engine ON paper_positions
WHEN OLD.engine IS NOT NEW.engine
BEGIN SELECT RAISE(ABORT, 'a paper position keeps the execution model it was opened with'); END;
