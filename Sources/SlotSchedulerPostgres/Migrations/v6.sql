-- user_quota, v1's per-user counter, is unused since migration 2 (slot_reserve counts the
-- user's upcoming bookings under a per-user lock). Migration 2 kept it for instances still
-- running v1 code during that upgrade, whose cancellations decremented it; no code since
-- reads or writes it, and no function of migrations 2 to 5 names it. Stop any instance of
-- code from before migration 2 before applying this one.
DROP TABLE IF EXISTS user_quota;