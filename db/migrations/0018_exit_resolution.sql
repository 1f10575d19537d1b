ALTER TABLE `paper_positions` ADD `exit_resolution` text;--> statement-breakpoint
ALTER TABLE `scored_signals` ADD `exit_resolution` text;