-- Published records are append-only, enforced here rather than trusted to the code
-- (docs/signals.md, docs/trust.md).
CREATE TRIGGER signals_no_update BEFORE UPDATE ON signals
BEGIN SELECT RAISE(ABORT, 'signals are append-only: a recorded signal is never changed'); END;
--> statement-breakpoint
CREATE TRIGGER signals_no_delete BEFORE DELETE ON signals
BEGIN SELECT RAISE(ABORT, 'signals are append-only: a recorded signal is never removed'); END;
--> statement-breakpoint
CREATE TRIGGER scored_signals_final_no_update BEFORE UPDATE ON scored_signals
WHEN OLD.status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable')
BEGIN SELECT RAISE(ABORT, 'finalized scored signals are never rewritten'); END;
--> statement-breakpoint
CREATE TRIGGER scored_signals_final_no_delete BEFORE DELETE ON scored_signals
WHEN OLD.status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable')
BEGIN SELECT RAISE(ABORT, 'finalized scored signals are never deleted'); END;
--> statement-breakpoint
CREATE TRIGGER scored_signals_engine_fixed BEFORE UPDATE OF engine, signal_id, entry_time_ms, entry_price, fee_frac, leverage, mmr_frac, sl_pct, tp_pct, max_bars, funding_source ON scored_signals
WHEN NEW.engine IS NOT OLD.engine OR NEW.signal_id IS NOT OLD.signal_id OR NEW.entry_time_ms IS NOT OLD.entry_time_ms
  OR NEW.entry_price IS NOT OLD.entry_price OR NEW.fee_frac IS NOT OLD.fee_frac OR NEW.leverage IS NOT OLD.leverage
  OR NEW.mmr_frac IS NOT OLD.mmr_frac OR NEW.sl_pct IS NOT OLD.sl_pct OR NEW.tp_pct IS NOT OLD.tp_pct
  OR NEW.max_bars IS NOT OLD.max_bars OR NEW.funding_source IS NOT OLD.funding_source
BEGIN SELECT RAISE(ABORT, 'the frozen inputs and engine label of a scored signal never change'); END;
--> statement-breakpoint
CREATE TRIGGER day_roots_no_update BEFORE UPDATE ON day_roots
BEGIN SELECT RAISE(ABORT, 'a sealed day root never changes'); END;
--> statement-breakpoint
CREATE TRIGGER day_roots_no_delete BEFORE DELETE ON day_roots
BEGIN SELECT RAISE(ABORT, 'a sealed day root is never removed'); END;
--> statement-breakpoint
CREATE TRIGGER day_leaves_no_update BEFORE UPDATE ON day_leaves
BEGIN SELECT RAISE(ABORT, 'a sealed leaf never changes'); END;
--> statement-breakpoint
CREATE TRIGGER day_leaves_no_delete BEFORE DELETE ON day_leaves
BEGIN SELECT RAISE(ABORT, 'a sealed leaf is never removed'); END;
--> statement-breakpoint
-- positions 0 .. leaf_count-1 only, each once (primary key (day, idx)): a sealed day is full
CREATE TRIGGER day_leaves_only_while_sealing BEFORE INSERT ON day_leaves
WHEN NEW.idx < 0 OR NEW.idx >= (SELECT leaf_count FROM day_roots WHERE day = NEW.day)
BEGIN SELECT RAISE(ABORT, 'a sealed day takes no further leaves'); END;
--> statement-breakpoint
-- INSERT OR REPLACE deletes the old row without firing DELETE triggers unless
-- recursive_triggers is on (src/db.ts turns it on); these refuse it regardless
CREATE TRIGGER scored_signals_final_no_replace BEFORE INSERT ON scored_signals
WHEN EXISTS (SELECT 1 FROM scored_signals WHERE signal_id = NEW.signal_id AND status IN ('tp', 'sl', 'timeout', 'liquidation', 'unscoreable'))
BEGIN SELECT RAISE(ABORT, 'finalized scored signals are never rewritten'); END;
--> statement-breakpoint
CREATE TRIGGER day_roots_no_replace BEFORE INSERT ON day_roots
WHEN EXISTS (SELECT 1 FROM day_roots WHERE day = NEW.day)
BEGIN SELECT RAISE(ABORT, 'a sealed day root never changes'); END;
