-- The provider's state from before its bearer ids were kept as digests: dropped (apps sign in again).
DELETE FROM "oidc_artifacts";
--> statement-breakpoint
CREATE TABLE "oidc_logouts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oidc_logouts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"realm_id" uuid NOT NULL,
	"client_id" text NOT NULL,
	"subject" text NOT NULL,
	"sid" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oidc_artifacts" ADD COLUMN "successor" text;--> statement-breakpoint
ALTER TABLE "oidc_artifacts" ADD COLUMN "session_id" uuid;--> statement-breakpoint
ALTER TABLE "oidc_logouts" ADD CONSTRAINT "oidc_logouts_realm_id_realms_id_fk" FOREIGN KEY ("realm_id") REFERENCES "public"."realms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_logouts_due_idx" ON "oidc_logouts" USING btree ("next_attempt_at");--> statement-breakpoint
ALTER TABLE "oidc_artifacts" ADD CONSTRAINT "oidc_artifacts_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oidc_artifacts_session_idx" ON "oidc_artifacts" USING btree ("session_id");--> statement-breakpoint
-- A session here is ending (signed out, ended on the security page, by a password change or reset,
-- by an operator, with its account, or purged): every app a live provider session bound to it
-- signed in to, and that asked for back-channel logout, is to be told, and the codes and tokens
-- bound to it go. The provider session itself stays, unbound (the foreign key sets it null): its
-- next use finds no session here behind it and asks for a sign-in.
CREATE FUNCTION "accounts_session_ending"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "oidc_logouts" ("realm_id", "client_id", "subject", "sid")
  SELECT a."realm_id", c."client_id", a."account_id", auth.value->>'sid'
  FROM "oidc_artifacts" a
  CROSS JOIN LATERAL jsonb_each(coalesce(a."payload"->'authorizations', '{}'::jsonb)) AS auth
  JOIN "oidc_clients" c ON c."realm_id" = a."realm_id" AND c."client_id" = auth.key
  WHERE a."session_id" = OLD."id" AND a."kind" = 'Session' AND a."account_id" IS NOT NULL
    AND (a."expires_at" IS NULL OR a."expires_at" > now()) AND c."backchannel_logout_uri" IS NOT NULL;
  DELETE FROM "oidc_artifacts" WHERE "session_id" = OLD."id" AND "kind" <> 'Session';
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER "sessions_ending" BEFORE DELETE ON "sessions" FOR EACH ROW EXECUTE FUNCTION "accounts_session_ending"();
--> statement-breakpoint
-- An account deleted: everything the provider holds of it (its consents, offline refresh tokens,
-- provider sessions) goes with it; its subject is never used again.
CREATE FUNCTION "accounts_user_deleted_oidc"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "oidc_artifacts" WHERE "realm_id" = OLD."realm_id" AND "account_id" = OLD."subject"::text;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_deleted_oidc" AFTER DELETE ON "users" FOR EACH ROW EXECUTE FUNCTION "accounts_user_deleted_oidc"();
