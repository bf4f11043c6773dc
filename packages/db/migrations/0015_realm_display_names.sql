ALTER TABLE "realms" ALTER COLUMN "name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "realms" ADD CONSTRAINT "realms_named_unless_default" CHECK ("realms"."name" IS NOT NULL OR "realms"."slug" = 'default');--> statement-breakpoint
-- The default realm was seeded as "Default", a word no person should see: until an operator names
-- it (npm run realm -- rename default "<name>"), people see the service's name.
UPDATE "realms" SET "name" = NULL WHERE "slug" = 'default' AND "name" = 'Default';
