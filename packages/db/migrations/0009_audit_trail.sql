ALTER TABLE "account_events" ADD COLUMN "subject_digest" text;--> statement-breakpoint
ALTER TABLE "account_events" ADD COLUMN "request_id" text;--> statement-breakpoint
CREATE INDEX "account_events_client_type_time_idx" ON "account_events" USING btree ("client_key","type","created_at");--> statement-breakpoint
-- Account events are an audit trail: once settled, a row is never changed or deleted by the
-- service, so whoever takes an account over cannot erase their traces. Allowed: a password check's
-- claim (pending) settling once or being withdrawn; detaching a deleted account (user_id to
-- null, as its foreign key does; the lockout and client keys to null and its email digest set, nothing else); and deleting rows through
-- accounts_purge_events(), the retention purge, which runs as the owner of this table (SECURITY
-- DEFINER). A serving role that is not the owner cannot get round the trigger (docs/operations.md).
CREATE FUNCTION "accounts_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD."pending" THEN RETURN OLD; END IF;
    IF current_setting('accounts.event_purge', true) = 'on'
       AND current_user = (SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'account_events') THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'account events are append-only: only the retention purge deletes them' USING ERRCODE = '42501';
  END IF;
  IF OLD."pending" THEN RETURN NEW; END IF;
  IF OLD."user_id" IS NOT NULL AND NEW."user_id" IS NULL
     AND (NEW."lockout_key" IS NULL OR NEW."lockout_key" = OLD."lockout_key")
     AND (NEW."client_key" IS NULL OR NEW."client_key" = OLD."client_key")
     AND (OLD."subject_digest" IS NULL OR NEW."subject_digest" IS NOT DISTINCT FROM OLD."subject_digest")
     AND (NEW."id", NEW."public_id", NEW."realm_id", NEW."type", NEW."pending", NEW."client_ip", NEW."user_agent", NEW."request_id", NEW."created_at")
         IS NOT DISTINCT FROM (OLD."id", OLD."public_id", OLD."realm_id", OLD."type", OLD."pending", OLD."client_ip", OLD."user_agent", OLD."request_id", OLD."created_at") THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'account events are append-only: a settled event cannot be changed' USING ERRCODE = '42501';
END $$;
--> statement-breakpoint
CREATE TRIGGER "account_events_append_only" BEFORE UPDATE OR DELETE ON "account_events"
  FOR EACH ROW EXECUTE FUNCTION "accounts_events_append_only"();
--> statement-breakpoint
-- The retention purge of account events: up to `batch` rows created before `cutoff`, skipping rows
-- another transaction holds. Runs as the table's owner, which the trigger above lets delete.
CREATE FUNCTION "accounts_purge_events"(cutoff timestamptz, batch integer) RETURNS integer
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  n integer;
BEGIN
  PERFORM set_config('accounts.event_purge', 'on', true);
  DELETE FROM "account_events" WHERE "id" IN (
    SELECT "id" FROM "account_events" WHERE "created_at" < cutoff LIMIT batch FOR UPDATE SKIP LOCKED);
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('accounts.event_purge', 'off', true);
  RETURN n;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION "accounts_purge_events"(timestamptz, integer) FROM PUBLIC;
