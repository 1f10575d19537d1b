CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL,
	`strategy` text,
	`coin` text,
	`status` text,
	`payload` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created_at`);