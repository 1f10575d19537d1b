CREATE TABLE "research_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"client" text NOT NULL,
	"request" text NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"planned" integer NOT NULL,
	"finished" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"started_at" bigint,
	"finished_at" bigint,
	"owner" text NOT NULL,
	"result" text
);
--> statement-breakpoint
CREATE TABLE "research_trials" (
	"run_id" text NOT NULL,
	"trial" integer NOT NULL,
	"fold" integer,
	"params" text NOT NULL,
	"metrics" text NOT NULL,
	"total_trades" integer NOT NULL,
	"objective_value" double precision,
	"request_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "research_trials_run_id_trial_pk" PRIMARY KEY("run_id","trial")
);
--> statement-breakpoint
CREATE INDEX "research_runs_client_state" ON "research_runs" USING btree ("client","state");