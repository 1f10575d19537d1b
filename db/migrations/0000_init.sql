CREATE TABLE `result_requests` (
	`hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`request` text NOT NULL,
	`data_version` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `upstream_snapshots` (
	`key` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`payload` text NOT NULL,
	`fetched_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `upstream_snapshots_fetched` ON `upstream_snapshots` (`fetched_at_ms`);