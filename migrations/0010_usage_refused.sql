ALTER TABLE "usage_daily" ADD COLUMN "refused_revoked" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "refused_network" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "refused_origin" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "refused_user_agent" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "refused_secret" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused_revoked" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused_network" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused_origin" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused_user_agent" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused_secret" bigint DEFAULT 0 NOT NULL;