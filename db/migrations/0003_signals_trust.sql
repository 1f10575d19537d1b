CREATE TABLE `day_leaves` (
	`day` text NOT NULL,
	`idx` integer NOT NULL,
	`record_id` text NOT NULL,
	`leaf` text NOT NULL,
	`leaf_hash` text NOT NULL,
	PRIMARY KEY(`day`, `idx`),
	FOREIGN KEY (`day`) REFERENCES `day_roots`(`day`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `day_leaves_record_id_unique` ON `day_leaves` (`record_id`);--> statement-breakpoint
CREATE INDEX `day_leaves_hash` ON `day_leaves` (`leaf_hash`);--> statement-breakpoint
CREATE TABLE `day_roots` (
	`day` text PRIMARY KEY NOT NULL,
	`leaf_count` integer NOT NULL,
	`root` text,
	`algorithm` text NOT NULL,
	`sealed_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `real_track` (
	`t_ms` integer PRIMARY KEY NOT NULL,
	`nav` real NOT NULL,
	`imported_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scored_signals` (
	`signal_id` text PRIMARY KEY NOT NULL,
	`engine` text NOT NULL,
	`status` text NOT NULL,
	`exit_reason` text,
	`reason` text,
	`entry_time_ms` integer NOT NULL,
	`entry_price` real NOT NULL,
	`pnl_pct` real NOT NULL,
	`gross_pct` real,
	`fee_pct` real,
	`funding_pct` real,
	`exit_price` real,
	`exit_time_ms` integer,
	`bars_held` integer,
	`sl_tp_same_bar` integer,
	`fee_frac` real NOT NULL,
	`leverage` real NOT NULL,
	`mmr_frac` real NOT NULL,
	`sl_pct` real NOT NULL,
	`tp_pct` real NOT NULL,
	`max_bars` integer NOT NULL,
	`funding_source` text NOT NULL,
	`funding_events` integer,
	`funding_events_real` integer,
	`marked_through_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`finalized_at_ms` integer,
	FOREIGN KEY (`signal_id`) REFERENCES `signals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `scored_status` ON `scored_signals` (`status`);--> statement-breakpoint
CREATE INDEX `scored_exit` ON `scored_signals` (`exit_time_ms`);--> statement-breakpoint
CREATE TABLE `signal_scans` (
	`timeframe` text NOT NULL,
	`signal_bar_ms` integer NOT NULL,
	`scanned_at_ms` integer NOT NULL,
	`coins` integer NOT NULL,
	`strategies` integer NOT NULL,
	`signals_found` integer NOT NULL,
	PRIMARY KEY(`timeframe`, `signal_bar_ms`)
);
--> statement-breakpoint
CREATE TABLE `signals` (
	`id` text PRIMARY KEY NOT NULL,
	`strategy` text NOT NULL,
	`strategy_name` text NOT NULL,
	`status` text NOT NULL,
	`coin` text NOT NULL,
	`direction` text NOT NULL,
	`timeframe` text NOT NULL,
	`signal_bar_ms` integer NOT NULL,
	`signal_time_ms` integer NOT NULL,
	`entry_price` real NOT NULL,
	`sl_pct` real NOT NULL,
	`tp_pct` real NOT NULL,
	`max_bars` integer NOT NULL,
	`published_at_ms` integer NOT NULL,
	`backfill` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `signals_time` ON `signals` (`signal_time_ms`);--> statement-breakpoint
CREATE INDEX `signals_published` ON `signals` (`published_at_ms`);