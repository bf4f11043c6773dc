CREATE TABLE "oidc_artifacts" (
	"realm_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"account_id" text,
	"client_id" text,
	"expires_at" timestamp with time zone,
	"consumed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oidc_artifacts_realm_id_kind_id_pk" PRIMARY KEY("realm_id","kind","id")
);
--> statement-breakpoint
CREATE TABLE "oidc_clients" (
	"realm_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"name" text NOT NULL,
	"secret_digest" text,
	"redirect_uris" jsonb NOT NULL,
	"post_logout_redirect_uris" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"backchannel_logout_uri" text,
	"public" boolean DEFAULT false NOT NULL,
	"first_party" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oidc_clients_realm_id_client_id_pk" PRIMARY KEY("realm_id","client_id")
);
--> statement-breakpoint
CREATE TABLE "oidc_signing_keys" (
	"realm_id" uuid NOT NULL,
	"kid" text NOT NULL,
	"private_jwk" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "oidc_signing_keys_realm_id_kid_pk" PRIMARY KEY("realm_id","kid")
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "amr" jsonb;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "subject" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "oidc_artifacts" ADD CONSTRAINT "oidc_artifacts_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_clients" ADD CONSTRAINT "oidc_clients_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_signing_keys" ADD CONSTRAINT "oidc_signing_keys_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_artifacts_grant_idx" ON "oidc_artifacts" USING btree ("realm_id","grant_id");--> statement-breakpoint
CREATE INDEX "oidc_artifacts_uid_idx" ON "oidc_artifacts" USING btree ("realm_id","uid");--> statement-breakpoint
CREATE INDEX "oidc_artifacts_user_code_idx" ON "oidc_artifacts" USING btree ("realm_id","user_code");--> statement-breakpoint
CREATE INDEX "oidc_artifacts_account_idx" ON "oidc_artifacts" USING btree ("realm_id","account_id","kind");--> statement-breakpoint
CREATE INDEX "oidc_artifacts_expires_idx" ON "oidc_artifacts" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_signing_keys_current_unique" ON "oidc_signing_keys" USING btree ("realm_id") WHERE "oidc_signing_keys"."retired_at" is null;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_subject_unique" UNIQUE("subject");