ALTER TABLE "account_events" ADD COLUMN "lockout_key" text;--> statement-breakpoint
CREATE INDEX "account_events_lockout_idx" ON "account_events" USING btree ("lockout_key","created_at");