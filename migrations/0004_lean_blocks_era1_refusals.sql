CREATE TABLE "era1_refusals" (
	"network" text NOT NULL,
	"epoch" integer NOT NULL,
	"file" text NOT NULL,
	"reason" text NOT NULL,
	"refused_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "era1_refusals_network_epoch_pk" PRIMARY KEY("network","epoch")
);
--> statement-breakpoint
ALTER TABLE "era1_refusals" ADD CONSTRAINT "era1_refusals_network_networks_name_fk" FOREIGN KEY ("network") REFERENCES "public"."networks"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
DROP VIEW "public"."blocks_hex";--> statement-breakpoint
-- blocks is rebuilt rather than altered: dropped columns would still cost every new row a null
-- bitmap. Fixed-width columns first, so the row needs no alignment padding.
ALTER TABLE "uncles" DROP CONSTRAINT "uncles_network_block_hash_blocks_network_hash_fk";--> statement-breakpoint
ALTER TABLE "blocks" RENAME TO "blocks_before_0004";--> statement-breakpoint
CREATE TABLE "blocks" (
	"number" bigint NOT NULL,
	"uncle_count" smallint NOT NULL,
	"canonical" boolean DEFAULT true NOT NULL,
	"network" text NOT NULL,
	"hash" bytea NOT NULL,
	"parent_hash" bytea NOT NULL
);
--> statement-breakpoint
INSERT INTO "blocks" ("number", "uncle_count", "canonical", "network", "hash", "parent_hash")
	SELECT "number", "uncle_count", "canonical", "network", "hash", "parent_hash" FROM "blocks_before_0004";--> statement-breakpoint
DROP TABLE "blocks_before_0004";--> statement-breakpoint
ALTER TABLE "blocks" ADD CONSTRAINT "blocks_network_hash_pk" PRIMARY KEY("network","hash");--> statement-breakpoint
ALTER TABLE "blocks" ADD CONSTRAINT "blocks_network_networks_name_fk" FOREIGN KEY ("network") REFERENCES "public"."networks"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "blocks_canonical_number_key" ON "blocks" USING btree ("network","number") WHERE "blocks"."canonical";--> statement-breakpoint
ALTER TABLE "uncles" ADD CONSTRAINT "uncles_network_block_hash_blocks_network_hash_fk" FOREIGN KEY ("network","block_hash") REFERENCES "public"."blocks"("network","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE VIEW "public"."blocks_hex" AS (select "network", "number", '0x' || encode("hash", 'hex') as "hash", '0x' || encode("parent_hash", 'hex') as "parent_hash", "uncle_count", "canonical" from "blocks");
