CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`week` text NOT NULL,
	`lang` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_attempt_at_ms` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	`sent_at_ms` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_outbox_once` ON `mail_outbox` (`kind`,`recipient`,`week`);--> statement-breakpoint
CREATE INDEX `mail_outbox_due` ON `mail_outbox` (`status`,`next_attempt_at_ms`);--> statement-breakpoint
CREATE TABLE `service_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subscribers` (
	`email` text PRIMARY KEY NOT NULL,
	`lang` text NOT NULL,
	`status` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`updated_at_ms` integer NOT NULL,
	`confirmed_at_ms` integer,
	`unsubscribed_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `subscribers_status` ON `subscribers` (`status`);--> statement-breakpoint
CREATE TABLE `weekly_digests` (
	`week` text PRIMARY KEY NOT NULL,
	`payload` text NOT NULL,
	`created_at_ms` integer NOT NULL
);
