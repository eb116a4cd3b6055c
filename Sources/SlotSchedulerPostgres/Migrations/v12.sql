-- The policy's check-in and no-show rules as plain columns the store writes from its Policy
-- (PostgresBookingService.writePolicyColumns), in the statement's transaction that writes
-- policy_json and its version: no longer generated from policy_json with defaults of their own
-- (migration 5's coalesce(…, 900) and coalesce(…, 3600) stated Policy's defaults a second time).
-- DROP EXPRESSION keeps each column's current value, which the store writes again at its start.
-- A catalog-only lock on deployment, one row: no lock on bookings.
ALTER TABLE deployment ALTER COLUMN early_check_in DROP EXPRESSION;
ALTER TABLE deployment ALTER COLUMN no_show_grace DROP EXPRESSION;
ALTER TABLE deployment ALTER COLUMN no_show_count DROP EXPRESSION;
ALTER TABLE deployment ALTER COLUMN no_show_window DROP EXPRESSION;
ALTER TABLE deployment ALTER COLUMN no_show_limit DROP EXPRESSION;
