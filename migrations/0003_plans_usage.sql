CREATE TABLE "plans" (
	"name" text PRIMARY KEY NOT NULL,
	"requests_per_second" integer NOT NULL,
	"requests_per_day" bigint NOT NULL,
	"max_batch_size" integer NOT NULL,
	"failover_allowed" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plans_name_check" CHECK ("plans"."name" in ('core', 'developer', 'team', 'growth', 'custom')),
	CONSTRAINT "plans_limits_check" CHECK ("plans"."requests_per_second" > 0 and "plans"."requests_per_day" > 0 and "plans"."max_batch_size" > 0)
);
--> statement-breakpoint
-- Seeded by hand (drizzle-kit writes only DDL): the default plans, before api_keys.plan references them.
INSERT INTO "plans" ("name", "requests_per_second", "requests_per_day", "max_batch_size", "failover_allowed") VALUES
	('core', 10, 100000, 100, false),
	('developer', 25, 500000, 500, false),
	('team', 100, 2000000, 1000, false),
	('growth', 500, 20000000, 1000, true),
	('custom', 1000, 100000000, 1000, true);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"key_id" integer NOT NULL,
	"day" date NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"forwarded" bigint DEFAULT 0 NOT NULL,
	"rate_limited" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_key_id_day_pk" PRIMARY KEY("key_id","day")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rps_limit" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "daily_limit" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "batch_limit" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "failover" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_plan_plans_fk" FOREIGN KEY ("plan") REFERENCES "public"."plans"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_limits_check" CHECK (coalesce("api_keys"."rps_limit", 1) > 0 and coalesce("api_keys"."daily_limit", 1) > 0 and coalesce("api_keys"."batch_limit", 1) > 0);