-- The store's reserve path since migration 15: one CALL of slot_reserve_committed, which runs
-- slot_take and commits before it answers (one round trip, where reserve.sql takes three), over
-- the same slot space as reserve.sql. Run it with pgbench -M extended (as PostgresNIO sends it),
-- outside a transaction block: a COMMIT inside a procedure called in one is refused.
-- now = 2030-03-01 00:00 UTC (day 21974), so every slot is in the future; limit 16.
\set socket random(0, 1999)
\set day random(21975, 22249)
\set hour random(0, 23)
\set user random(1, 1000000)
\set start :day * 86400 + :hour * 3600
CALL slot_reserve_committed(1, :socket / 10, :socket, :day, :hour, :user, NULL, NULL, 1898553600, :start, NULL, 16777215, 16, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
