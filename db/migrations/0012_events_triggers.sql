-- The push feed's events are published records (docs/events.md): a client that resumed
-- after id n must find the same events after n on any later connection, so no event is
-- ever changed or removed. INSERT OR REPLACE of an existing id deletes it first, which
-- meets the DELETE trigger because src/db.ts turns recursive_triggers on.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: a published event is never changed'); END;
--> statement-breakpoint
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: a published event is never removed'); END;
