ALTER TABLE "account_events" ADD COLUMN "app_client_id" text;--> statement-breakpoint
ALTER TABLE "account_events" ADD COLUMN "app_name" text;--> statement-breakpoint
-- The append-only rule holds the app an event is about too: a detach changes neither column.
CREATE OR REPLACE FUNCTION "accounts_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
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
     AND (NEW."id", NEW."public_id", NEW."realm_id", NEW."type", NEW."pending", NEW."client_ip", NEW."user_agent", NEW."request_id", NEW."app_client_id", NEW."app_name", NEW."created_at")
         IS NOT DISTINCT FROM (OLD."id", OLD."public_id", OLD."realm_id", OLD."type", OLD."pending", OLD."client_ip", OLD."user_agent", OLD."request_id", OLD."app_client_id", OLD."app_name", OLD."created_at") THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'account events are append-only: a settled event cannot be changed' USING ERRCODE = '42501';
END $$;
