-- Who runs a job and when it last showed life: an unfinished row whose owner died is taken
-- over at once instead of after 6 hours. Nullable: rows written before keep their meaning.
ALTER TABLE `job_runs` ADD `owner_host` text;--> statement-breakpoint
ALTER TABLE `job_runs` ADD `owner_pid` integer;--> statement-breakpoint
ALTER TABLE `job_runs` ADD `owner_instance` text;--> statement-breakpoint
ALTER TABLE `job_runs` ADD `heartbeat_ms` integer;