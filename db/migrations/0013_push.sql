CREATE TABLE `push_cursor` (
	`name` text PRIMARY KEY NOT NULL,
	`event_id` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `push_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at_ms` integer NOT NULL,
	`claimed_until_ms` integer,
	`owner` text,
	`created_at_ms` integer NOT NULL,
	`delivered_at_ms` integer,
	`last_status` integer,
	`last_error` text,
	FOREIGN KEY (`endpoint_id`) REFERENCES `push_endpoints`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_deliveries_once` ON `push_deliveries` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `push_deliveries_due` ON `push_deliveries` (`status`,`next_attempt_at_ms`);--> statement-breakpoint
CREATE TABLE `push_endpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sink` text NOT NULL,
	`url` text,
	`secret` text,
	`telegram_bot_token` text,
	`telegram_chat_id` text,
	`lang` text NOT NULL,
	`kinds` text NOT NULL,
	`strategies` text NOT NULL,
	`coins` text NOT NULL,
	`statuses` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`after_event_id` integer NOT NULL,
	`disabled_at_ms` integer,
	`paused_until_ms` integer DEFAULT 0 NOT NULL,
	`last_success_at_ms` integer,
	`last_failure_at_ms` integer,
	`last_error` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`failed_deliveries` integer DEFAULT 0 NOT NULL
);
