CREATE TABLE `job_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job` text NOT NULL,
	`slot` text NOT NULL,
	`attempt` integer NOT NULL,
	`trigger` text NOT NULL,
	`slot_ms` integer NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer,
	`outcome` text,
	`error` text,
	`counts` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `job_runs_slot_attempt` ON `job_runs` (`slot`,`attempt`);--> statement-breakpoint
CREATE INDEX `job_runs_job_slot_ms` ON `job_runs` (`job`,`slot_ms`);--> statement-breakpoint
CREATE TABLE `ranking_day_files` (
	`date` text PRIMARY KEY NOT NULL,
	`sha256` text NOT NULL,
	`body` text NOT NULL,
	`schema_version` text NOT NULL,
	`generated_at_ms` integer NOT NULL
);
