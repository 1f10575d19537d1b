-- Published ranking day files are append-only: the database itself refuses to change them.
CREATE TRIGGER ranking_day_files_no_update BEFORE UPDATE ON ranking_day_files
BEGIN
  SELECT RAISE(ABORT, 'ranking_day_files is append-only: a published day file is never rewritten');
END;
--> statement-breakpoint
CREATE TRIGGER ranking_day_files_no_delete BEFORE DELETE ON ranking_day_files
BEGIN
  SELECT RAISE(ABORT, 'ranking_day_files is append-only: a published day file is never deleted');
END;
