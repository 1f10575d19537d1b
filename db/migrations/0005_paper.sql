CREATE TABLE `paper_cycles` (
	`id` integer PRIMARY KEY NOT NULL,
	`start_ms` integer NOT NULL,
	`length_days` integer NOT NULL,
	`starting_capital` real NOT NULL,
	`slots` integer NOT NULL,
	`status` text NOT NULL,
	`processed_through_ms` integer NOT NULL,
	`completed_at_ms` integer,
	`final_equity` real
);
--> statement-breakpoint
CREATE TABLE `paper_history` (
	`cycle_id` integer NOT NULL,
	`date` text NOT NULL,
	`equity` real NOT NULL,
	`open_count` integer NOT NULL,
	`closed_count` integer NOT NULL,
	PRIMARY KEY(`cycle_id`, `date`),
	FOREIGN KEY (`cycle_id`) REFERENCES `paper_cycles`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `paper_picks` (
	`cycle_id` integer NOT NULL,
	`day` text NOT NULL,
	`picked_at_ms` integer NOT NULL,
	`rule` text NOT NULL,
	`ranking_date` text,
	`picks` text NOT NULL,
	PRIMARY KEY(`cycle_id`, `day`),
	FOREIGN KEY (`cycle_id`) REFERENCES `paper_cycles`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `paper_positions` (
	`id` text PRIMARY KEY NOT NULL,
	`cycle_id` integer NOT NULL,
	`signal_id` text NOT NULL,
	`configuration_id` text NOT NULL,
	`strategy` text NOT NULL,
	`coin` text NOT NULL,
	`direction` text NOT NULL,
	`timeframe` text NOT NULL,
	`sl_pct` real NOT NULL,
	`tp_pct` real NOT NULL,
	`max_bars` integer NOT NULL,
	`fee_frac` real NOT NULL,
	`leverage` real NOT NULL,
	`mmr_frac` real NOT NULL,
	`margin_usd` real NOT NULL,
	`reference_entry_price` real NOT NULL,
	`entry_time_ms` integer NOT NULL,
	`entry_price` real,
	`status` text NOT NULL,
	`exit_reason` text,
	`exit_price` real,
	`exit_time_ms` integer,
	`bars_held` integer,
	`pnl_pct` real,
	`pnl_usd` real,
	`mark_price` real,
	`unrealized_usd` real,
	`marked_through_ms` integer NOT NULL,
	`opened_at_ms` integer NOT NULL,
	`closed_at_ms` integer,
	FOREIGN KEY (`cycle_id`) REFERENCES `paper_cycles`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`signal_id`) REFERENCES `signals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `paper_positions_cycle` ON `paper_positions` (`cycle_id`,`status`);