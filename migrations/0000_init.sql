CREATE TABLE "blocks" (
	"network" text NOT NULL,
	"hash" "bytea" NOT NULL,
	"number" bigint NOT NULL,
	"parent_hash" "bytea" NOT NULL,
	"miner" "bytea" NOT NULL,
	"timestamp" bigint NOT NULL,
	"difficulty" numeric(78, 0) NOT NULL,
	"total_difficulty" numeric(78, 0),
	"gas_limit" numeric(78, 0) NOT NULL,
	"gas_used" numeric(78, 0) NOT NULL,
	"base_fee_per_gas" numeric(78, 0),
	"sha3_uncles" "bytea" NOT NULL,
	"uncle_count" smallint NOT NULL,
	"canonical" boolean DEFAULT true NOT NULL,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "blocks_network_hash_pk" PRIMARY KEY("network","hash")
);
--> statement-breakpoint
CREATE TABLE "indexed_ranges" (
	"network" text NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"completed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "indexed_ranges_network_from_block_to_block_pk" PRIMARY KEY("network","from_block","to_block"),
	CONSTRAINT "indexed_ranges_order_check" CHECK ("indexed_ranges"."from_block" <= "indexed_ranges"."to_block" and "indexed_ranges"."from_block" >= 0)
);
--> statement-breakpoint
CREATE TABLE "networks" (
	"name" text PRIMARY KEY NOT NULL,
	"chain_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "uncles" (
	"network" text NOT NULL,
	"block_hash" "bytea" NOT NULL,
	"block_number" bigint NOT NULL,
	"index" smallint NOT NULL,
	"hash" "bytea" NOT NULL,
	"parent_hash" "bytea" NOT NULL,
	"sha3_uncles" "bytea" NOT NULL,
	"miner" "bytea" NOT NULL,
	"state_root" "bytea" NOT NULL,
	"transactions_root" "bytea" NOT NULL,
	"receipts_root" "bytea" NOT NULL,
	"logs_bloom" "bytea" NOT NULL,
	"difficulty" numeric(78, 0) NOT NULL,
	"number" bigint NOT NULL,
	"gas_limit" numeric(78, 0) NOT NULL,
	"gas_used" numeric(78, 0) NOT NULL,
	"timestamp" numeric(78, 0) NOT NULL,
	"extra_data" "bytea" NOT NULL,
	"mix_hash" "bytea" NOT NULL,
	"nonce" "bytea" NOT NULL,
	"base_fee_per_gas" numeric(78, 0),
	"withdrawals_root" "bytea",
	"blob_gas_used" numeric(78, 0),
	"excess_blob_gas" numeric(78, 0),
	"parent_beacon_block_root" "bytea",
	"requests_hash" "bytea",
	"size" integer NOT NULL,
	CONSTRAINT "uncles_network_block_hash_index_pk" PRIMARY KEY("network","block_hash","index")
);
--> statement-breakpoint
ALTER TABLE "blocks" ADD CONSTRAINT "blocks_network_networks_name_fk" FOREIGN KEY ("network") REFERENCES "public"."networks"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "indexed_ranges" ADD CONSTRAINT "indexed_ranges_network_networks_name_fk" FOREIGN KEY ("network") REFERENCES "public"."networks"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uncles" ADD CONSTRAINT "uncles_network_block_hash_blocks_network_hash_fk" FOREIGN KEY ("network","block_hash") REFERENCES "public"."blocks"("network","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "blocks_canonical_number_key" ON "blocks" USING btree ("network","number") WHERE "blocks"."canonical";--> statement-breakpoint
CREATE INDEX "blocks_network_number_idx" ON "blocks" USING btree ("network","number");--> statement-breakpoint
CREATE INDEX "uncles_network_miner_idx" ON "uncles" USING btree ("network","miner");--> statement-breakpoint
CREATE INDEX "uncles_network_hash_idx" ON "uncles" USING btree ("network","hash");--> statement-breakpoint
CREATE INDEX "uncles_network_block_number_idx" ON "uncles" USING btree ("network","block_number");--> statement-breakpoint
CREATE VIEW "public"."blocks_hex" AS (select "network", "number", '0x' || encode("hash", 'hex') as "hash", '0x' || encode("parent_hash", 'hex') as "parent_hash", '0x' || encode("miner", 'hex') as "miner", "timestamp", case when "timestamp" <= 253402300799 then to_timestamp("timestamp") end as "time", "difficulty", "total_difficulty", "gas_limit", "gas_used", "base_fee_per_gas", '0x' || encode("sha3_uncles", 'hex') as "sha3_uncles", "uncle_count", "canonical", "indexed_at" from "blocks");--> statement-breakpoint
CREATE VIEW "public"."uncles_hex" AS (select "network", "block_number", '0x' || encode("block_hash", 'hex') as "block_hash", "index", '0x' || encode("hash", 'hex') as "hash", "number", '0x' || encode("parent_hash", 'hex') as "parent_hash", '0x' || encode("sha3_uncles", 'hex') as "sha3_uncles", '0x' || encode("miner", 'hex') as "miner", '0x' || encode("state_root", 'hex') as "state_root", '0x' || encode("transactions_root", 'hex') as "transactions_root", '0x' || encode("receipts_root", 'hex') as "receipts_root", '0x' || encode("logs_bloom", 'hex') as "logs_bloom", "difficulty", "gas_limit", "gas_used", "timestamp", case when "timestamp" <= 253402300799 then to_timestamp("timestamp") end as "time", '0x' || encode("extra_data", 'hex') as "extra_data", '0x' || encode("mix_hash", 'hex') as "mix_hash", '0x' || encode("nonce", 'hex') as "nonce", "base_fee_per_gas", '0x' || encode("withdrawals_root", 'hex') as "withdrawals_root", "blob_gas_used", "excess_blob_gas", '0x' || encode("parent_beacon_block_root", 'hex') as "parent_beacon_block_root", '0x' || encode("requests_hash", 'hex') as "requests_hash", "size" from "uncles");