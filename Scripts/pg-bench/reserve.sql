-- The store's reserve path: the same slot_reserve call PostgresBookingService.reserve makes
-- (policy version check, availability lookup under an advisory lock, insert guarded by the
-- partial unique index, quota row update with the limit), over the same slot space, in the same
-- explicit transaction: the store acknowledges a booking only once its own COMMIT has returned.
-- now = 2030-03-01 00:00 UTC (day 21974), so every slot is in the future; limit 16.
\set socket random(0, 1999)
\set day random(21975, 22249)
\set hour random(0, 23)
\set user random(1, 1000000)
\set start :day * 86400 + :hour * 3600
BEGIN;
SELECT reason, booking_id FROM slot_reserve(1, :socket / 10, :socket, :day, :hour, :user, NULL, NULL, 1898553600, :start, NULL, 16777215, 16);
COMMIT;
