CREATE TABLE "database_identity" (
	"only" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "database_identity_one_row_check" CHECK ("database_identity"."only")
);
