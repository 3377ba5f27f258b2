CREATE TABLE "reorgs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "reorgs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"network" text NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"depth" integer NOT NULL,
	"old_hash" "bytea" NOT NULL,
	"new_hash" "bytea",
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reorgs_order_check" CHECK ("reorgs"."from_block" <= "reorgs"."to_block" and "reorgs"."depth" > 0)
);
--> statement-breakpoint
ALTER TABLE "reorgs" ADD CONSTRAINT "reorgs_network_networks_name_fk" FOREIGN KEY ("network") REFERENCES "public"."networks"("name") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reorgs_network_id_idx" ON "reorgs" USING btree ("network","id");