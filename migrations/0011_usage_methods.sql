CREATE TABLE "usage_methods" (
	"key_id" integer NOT NULL,
	"day" date NOT NULL,
	"network" text NOT NULL,
	"method" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"rate_limited" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_methods_key_id_day_network_method_pk" PRIMARY KEY("key_id","day","network","method")
);
--> statement-breakpoint
ALTER TABLE "usage_methods" ADD CONSTRAINT "usage_methods_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;