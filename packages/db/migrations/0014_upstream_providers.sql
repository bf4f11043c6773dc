CREATE TABLE "upstream_flows" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"realm_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"state_digest" text NOT NULL,
	"browser_digest" text NOT NULL,
	"secrets" text NOT NULL,
	"next" text,
	"user_id" uuid,
	"response" text,
	"pending" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upstream_flows_state_digest_unique" UNIQUE("state_digest")
);
--> statement-breakpoint
CREATE TABLE "upstream_identities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"realm_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstream_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"realm_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text NOT NULL,
	"scope" text NOT NULL,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "pending_sign_ins" ADD COLUMN "first_amr" jsonb DEFAULT '["pwd"]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "upstream_flows" ADD CONSTRAINT "upstream_flows_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_flows" ADD CONSTRAINT "upstream_flows_provider_id_upstream_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."upstream_providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_flows" ADD CONSTRAINT "upstream_flows_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_identities" ADD CONSTRAINT "upstream_identities_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_identities" ADD CONSTRAINT "upstream_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_identities" ADD CONSTRAINT "upstream_identities_provider_id_upstream_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."upstream_providers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_providers" ADD CONSTRAINT "upstream_providers_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upstream_flows_browser_idx" ON "upstream_flows" USING btree ("browser_digest");--> statement-breakpoint
CREATE INDEX "upstream_flows_expires_idx" ON "upstream_flows" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_identities_subject_unique" ON "upstream_identities" USING btree ("realm_id","issuer","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_identities_user_provider_unique" ON "upstream_identities" USING btree ("user_id","provider_id");--> statement-breakpoint
CREATE UNIQUE INDEX "upstream_providers_slug_unique" ON "upstream_providers" USING btree ("realm_id","slug");--> statement-breakpoint
ALTER TABLE "upstream_providers" ADD CONSTRAINT "upstream_providers_kind_check" CHECK ("kind" IN ('oidc', 'google', 'github', 'microsoft', 'apple'));
