ALTER TABLE "paper_positions" ADD COLUMN "engine" text;
--> statement-breakpoint
-- the execution model a position was opened with is never changed: positions opened before it keep the old one (docs/paper-trading.md)
CREATE TRIGGER paper_positions_engine_frozen BEFORE UPDATE OF engine ON paper_positions
  FOR EACH ROW WHEN (OLD.engine IS DISTINCT FROM NEW.engine)
  EXECUTE FUNCTION perpsim_reject('a paper position keeps the execution model it was opened with');
