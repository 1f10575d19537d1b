-- The push outbox (docs/events.md "Webhooks"): a finished delivery (delivered, failed or
-- cancelled) is the record of what was sent where and is never changed; no delivery is
-- ever removed (its endpoint is disabled instead, push_endpoints.disabled_at_ms).
CREATE TRIGGER push_deliveries_final_no_update BEFORE UPDATE ON push_deliveries
WHEN OLD.status IN ('delivered', 'failed', 'cancelled')
BEGIN SELECT RAISE(ABORT, 'a finished push delivery is never changed'); END;
--> statement-breakpoint
CREATE TRIGGER push_deliveries_no_delete BEFORE DELETE ON push_deliveries
BEGIN SELECT RAISE(ABORT, 'push deliveries are never removed'); END;
--> statement-breakpoint
-- The cursor only moves forward: moving it back would write an event's deliveries twice
-- (the unique key would skip them) or, moved past events unread, lose them.
CREATE TRIGGER push_cursor_forward_only BEFORE UPDATE ON push_cursor
WHEN NEW.event_id < OLD.event_id
BEGIN SELECT RAISE(ABORT, 'the push cursor never moves back'); END;
--> statement-breakpoint
CREATE TRIGGER push_cursor_no_delete BEFORE DELETE ON push_cursor
BEGIN SELECT RAISE(ABORT, 'the push cursor is never removed'); END;
--> statement-breakpoint
-- A removed endpoint stays removed: its secret is erased, and re-enabling it would send
-- unsigned or misaddressed deliveries.
CREATE TRIGGER push_endpoints_disabled_stays BEFORE UPDATE ON push_endpoints
WHEN OLD.disabled_at_ms IS NOT NULL AND NEW.disabled_at_ms IS NULL
BEGIN SELECT RAISE(ABORT, 'a removed push endpoint is never enabled again'); END;
