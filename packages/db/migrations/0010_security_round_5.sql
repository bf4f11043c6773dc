CREATE TABLE "audit_settings" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"event_retention_days" integer DEFAULT 90 NOT NULL
);
--> statement-breakpoint
DROP INDEX "mail_sends_recipient_time_idx";--> statement-breakpoint
ALTER TABLE "mail_sends" ADD COLUMN "kind" text DEFAULT 'caused' NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "factor_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "credentials_changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "mail_sends_recipient_kind_time_idx" ON "mail_sends" USING btree ("recipient_key","kind","created_at");--> statement-breakpoint
-- Links mailed before this migration were granted under the password the account has now.
UPDATE "users" SET "credentials_changed_at" = "password_changed_at";--> statement-breakpoint
-- One row only, written only by the table's owner (the migration role): the serving role cannot
-- shorten the audit trail's retention.
ALTER TABLE "audit_settings" ADD CONSTRAINT "audit_settings_one_row" CHECK ("id");--> statement-breakpoint
ALTER TABLE "audit_settings" ADD CONSTRAINT "audit_settings_retention_days" CHECK ("event_retention_days" BETWEEN 1 AND 3650);--> statement-breakpoint
INSERT INTO "audit_settings" DEFAULT VALUES;--> statement-breakpoint
CREATE FUNCTION "accounts_audit_settings_owner_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_user <> (SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'audit_settings') THEN
    RAISE EXCEPTION 'the audit trail''s retention is set by the owner of the schema only' USING ERRCODE = '42501';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'the audit trail''s retention cannot be removed' USING ERRCODE = '42501';
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "audit_settings_owner_only" BEFORE INSERT OR UPDATE OR DELETE ON "audit_settings"
  FOR EACH ROW EXECUTE FUNCTION "accounts_audit_settings_owner_only"();
--> statement-breakpoint
-- The purge never deletes an event younger than the retention setting, nor than a day (the
-- lockout's longest window, which still counts failures), whatever cutoff its caller passes.
CREATE OR REPLACE FUNCTION "accounts_purge_events"(cutoff timestamptz, batch integer) RETURNS integer
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  n integer;
  oldest_kept timestamptz;
BEGIN
  SELECT now() - make_interval(days => greatest(coalesce(max("event_retention_days"), 90), 1))
    INTO oldest_kept FROM "audit_settings";
  oldest_kept := least(oldest_kept, now() - interval '1 day');
  IF cutoff IS NULL OR cutoff > oldest_kept THEN cutoff := oldest_kept; END IF;
  PERFORM set_config('accounts.event_purge', 'on', true);
  DELETE FROM "account_events" WHERE "id" IN (
    SELECT "id" FROM "account_events" WHERE "created_at" < cutoff LIMIT greatest(coalesce(batch, 0), 0) FOR UPDATE SKIP LOCKED);
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('accounts.event_purge', 'off', true);
  RETURN n;
END $$;
--> statement-breakpoint
-- An account's events may be detached from it only once its row is gone: checked when the
-- transaction commits (the deletion detaches them, then deletes the account), so a live account's
-- events can never be cut loose from it.
CREATE FUNCTION "accounts_events_detached_only_when_gone"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "users" WHERE "id" = OLD."user_id") THEN
    RAISE EXCEPTION 'account events are append-only: a live account''s events cannot be detached from it' USING ERRCODE = '42501';
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "account_events_detached_only_when_gone" AFTER UPDATE ON "account_events"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD."user_id" IS NOT NULL AND NEW."user_id" IS NULL AND NOT OLD."pending")
  EXECUTE FUNCTION "accounts_events_detached_only_when_gone"();
--> statement-breakpoint
-- An account keeps its id for life: a new id would make a live account's row "gone" to the rule
-- above and let its events be detached.
CREATE FUNCTION "accounts_user_id_immutable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'an account''s id never changes' USING ERRCODE = '42501';
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_id_immutable" BEFORE UPDATE OF "id" ON "users"
  FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION "accounts_user_id_immutable"();
