-- The reserve path before the store waited for its own COMMIT: slot_reserve as one statement
-- in an implicit transaction (not safe: see docs/POSTGRES.md, "What accepted means"), kept to
-- measure what the explicit transaction costs. Same call as reserve.sql:
-- (policy version check, availability lookup under an advisory lock, insert guarded by the
-- partial unique index, quota row update with the limit), over the same slot space.
-- now = 2030-03-01 00:00 UTC (day 21974), so every slot is in the future; limit 16.
\set socket random(0, 1999)
\set day random(21975, 22249)
\set hour random(0, 23)
\set user random(1, 1000000)
\set start :day * 86400 + :hour * 3600
SELECT reason, booking_id FROM slot_reserve(1, :socket / 10, :socket, :day, :hour, :user, NULL, NULL, 1898553600, :start, NULL, 16777215, 16);
