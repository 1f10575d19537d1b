CREATE TABLE `research_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`client` text NOT NULL,
	`request` text NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`planned` integer NOT NULL,
	`finished` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`owner` text NOT NULL,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `research_runs_client_state` ON `research_runs` (`client`,`state`);--> statement-breakpoint
CREATE TABLE `research_trials` (
	`run_id` text NOT NULL,
	`trial` integer NOT NULL,
	`fold` integer,
	`params` text NOT NULL,
	`metrics` text NOT NULL,
	`total_trades` integer NOT NULL,
	`objective_value` real,
	`request_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`run_id`, `trial`)
);
