CREATE TABLE "accounts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "accounts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"email" text NOT NULL,
	"password_hash" text,
	"plan" text DEFAULT 'core' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" "bytea" PRIMARY KEY NOT NULL,
	"account_id" integer NOT NULL,
	"csrf_token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upgrade_requests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "upgrade_requests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"plan" text NOT NULL,
	"message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"granted_at" timestamp with time zone,
	CONSTRAINT "upgrade_requests_plan_check" CHECK ("upgrade_requests"."plan" in ('growth', 'custom'))
);
--> statement-breakpoint
CREATE TABLE "usage_hourly" (
	"key_id" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"network" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"forwarded" bigint DEFAULT 0 NOT NULL,
	"rate_limited" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_hourly_key_id_hour_network_pk" PRIMARY KEY("key_id","hour","network")
);
--> statement-breakpoint
-- Written by hand (drizzle-kit writes only DDL): the operator account, which cannot sign in,
-- holds the keys made so far with `uncle-rpc keys create` (and those made by it from now on).
INSERT INTO "accounts" ("email", "password_hash", "plan") VALUES ('operator@uncle-rpc.invalid', NULL, 'custom');--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "account_id" integer;--> statement-breakpoint
UPDATE "api_keys" SET "account_id" = (SELECT "id" FROM "accounts" WHERE "email" = 'operator@uncle-rpc.invalid');--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "account_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "networks" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_origins" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_user_agents" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "secret_hash" "bytea";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rps_cap" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "daily_cap" bigint;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_plan_plans_fk" FOREIGN KEY ("plan") REFERENCES "public"."plans"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upgrade_requests" ADD CONSTRAINT "upgrade_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts" USING btree ("email");--> statement-breakpoint
CREATE INDEX "sessions_account_id_idx" ON "sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "upgrade_requests_account_id_idx" ON "upgrade_requests" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "usage_hourly_hour_idx" ON "usage_hourly" USING btree ("hour");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_account_id_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_allowlists_check" CHECK (cardinality("api_keys"."allowed_origins") <= 30 and cardinality("api_keys"."allowed_user_agents") <= 30 and coalesce(cardinality("api_keys"."networks"), 0) <= 30);--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_caps_check" CHECK (coalesce("api_keys"."rps_cap", 1) > 0 and coalesce("api_keys"."daily_cap", 1) > 0);