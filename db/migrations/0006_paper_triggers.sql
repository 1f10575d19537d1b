-- Closed paper positions, day picks and daily history are published records (docs/paper-trading.md).
CREATE TRIGGER paper_positions_final_no_update BEFORE UPDATE ON paper_positions
WHEN OLD.status NOT IN ('pending', 'open')
BEGIN SELECT RAISE(ABORT, 'closed paper positions are never rewritten'); END;
--> statement-breakpoint
CREATE TRIGGER paper_positions_final_no_delete BEFORE DELETE ON paper_positions
WHEN OLD.status NOT IN ('pending', 'open')
BEGIN SELECT RAISE(ABORT, 'closed paper positions are never deleted'); END;
--> statement-breakpoint
CREATE TRIGGER paper_picks_no_update BEFORE UPDATE ON paper_picks
BEGIN SELECT RAISE(ABORT, 'a day''s paper picks never change'); END;
--> statement-breakpoint
CREATE TRIGGER paper_picks_no_delete BEFORE DELETE ON paper_picks
BEGIN SELECT RAISE(ABORT, 'a day''s paper picks are never removed'); END;
--> statement-breakpoint
CREATE TRIGGER paper_history_no_update BEFORE UPDATE ON paper_history
BEGIN SELECT RAISE(ABORT, 'paper history rows never change'); END;
--> statement-breakpoint
CREATE TRIGGER paper_history_no_delete BEFORE DELETE ON paper_history
BEGIN SELECT RAISE(ABORT, 'paper history rows are never removed'); END;
