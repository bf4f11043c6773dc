ALTER TABLE "users" ADD COLUMN "second_factor_suggestion_dismissed_at" timestamp with time zone;
-- When the owner dismissed the account page's suggestion to add a passkey or two-step sign-in: kept
-- with the account (not in a cookie), so it stays dismissed on every device, with or without scripts.
