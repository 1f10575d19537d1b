ALTER TABLE "paper_positions" ADD COLUMN "exit_resolution" text;--> statement-breakpoint
ALTER TABLE "scored_signals" ADD COLUMN "exit_resolution" text;