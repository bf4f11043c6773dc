-- Servers keep recently checked sessions in memory; these triggers tell every one of them (LISTEN
-- accounts_auth) which accounts' sessions or details changed, once the change commits. The payload
-- is a comma-separated list of user ids, or '*' for "any". A session's last-seen time moving
-- forward is not a change: it only makes a session live longer than a server assumed.
CREATE FUNCTION "accounts_notify_ids"(ids text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NOT NULL THEN
    PERFORM pg_notify('accounts_auth', CASE WHEN length(ids) > 7000 THEN '*' ELSE ids END);
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION "accounts_sessions_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An expired session is refused by every server already.
  PERFORM "accounts_notify_ids"((SELECT string_agg(DISTINCT "user_id"::text, ',') FROM "gone" WHERE "expires_at" > now()));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "accounts_session_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "accounts_notify_ids"(OLD."user_id"::text || CASE WHEN NEW."user_id" <> OLD."user_id" THEN ',' || NEW."user_id"::text ELSE '' END);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "accounts_users_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "accounts_notify_ids"((SELECT string_agg("id"::text, ',') FROM "gone"));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "accounts_all_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('accounts_auth', '*');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "sessions_deleted" AFTER DELETE ON "sessions" REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "accounts_sessions_deleted"();
--> statement-breakpoint
CREATE TRIGGER "sessions_updated" AFTER UPDATE ON "sessions" FOR EACH ROW
  WHEN (OLD."token_hash" IS DISTINCT FROM NEW."token_hash" OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
    OR OLD."expires_at" IS DISTINCT FROM NEW."expires_at" OR NEW."last_seen_at" < OLD."last_seen_at")
  EXECUTE FUNCTION "accounts_session_updated"();
--> statement-breakpoint
CREATE TRIGGER "users_updated" AFTER UPDATE ON "users" REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "accounts_users_changed"();
--> statement-breakpoint
CREATE TRIGGER "users_deleted" AFTER DELETE ON "users" REFERENCING OLD TABLE AS "gone" FOR EACH STATEMENT EXECUTE FUNCTION "accounts_users_changed"();
--> statement-breakpoint
CREATE TRIGGER "sessions_truncated" AFTER TRUNCATE ON "sessions" FOR EACH STATEMENT EXECUTE FUNCTION "accounts_all_changed"();
--> statement-breakpoint
CREATE TRIGGER "users_truncated" AFTER TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "accounts_all_changed"();
