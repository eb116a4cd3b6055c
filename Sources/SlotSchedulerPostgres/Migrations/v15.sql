-- A reservation in one round trip, committed before its answer is sent. The store ran
-- slot_reserve as BEGIN, SELECT ... FROM slot_reserve(...), COMMIT: three round trips, since a
-- statement run alone is committed at the protocol's Sync, after its row and CommandComplete
-- may already have reached the client (a crash in between would lose a booking the client saw
-- accepted). This procedure commits inside the CALL: the server sends the OUT values only
-- after its COMMIT has returned, that is, after the commit record is flushed (and replicated
-- to a synchronous standby), so the answer still means "committed". The CALL must run outside
-- a transaction block (a COMMIT in a procedure called inside one is refused): the store sends
-- it alone. It also calls slot_take directly, so no SQL wrapper is planned again on every call.
-- No SECURITY DEFINER and no SET clause: either would forbid the COMMIT. A procedure's OUT
-- parameters need PostgreSQL 14 or later.
CREATE PROCEDURE slot_reserve_committed(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT start_at bigint, OUT created_at bigint,
    OUT reminder bigint, OUT status text, OUT is_repeat boolean, OUT applied_limit integer
) LANGUAGE plpgsql AS $fn$
BEGIN
    SELECT t.reason, t.booking_id, t.start_at, t.created_at, t.reminder, t.status, t.is_repeat,
        t.applied_limit
    INTO reason, booking_id, start_at, created_at, reminder, status, is_repeat, applied_limit
    FROM slot_take('reserve', p_policy_version, p_station, ARRAY[p_socket], ARRAY[p_regular_mask], p_day,
                   p_hour, p_user, p_request, p_reminder, p_now, p_start, NULL, p_time_reason, p_limit,
                   NULL) t;
    COMMIT;
END
$fn$;

-- Whoever may run slot_reserve may run this procedure (as migration 7 did for slot_take): a
-- deployment that revoked EXECUTE from PUBLIC granted slot_reserve by name.
DO $fn$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT DISTINCT a.grantee FROM pg_proc p, aclexplode(p.proacl) a
        WHERE p.oid = 'slot_reserve(integer, integer, integer, integer, integer, bigint, text, bigint,
                                    bigint, bigint, text, integer, integer)'::regprocedure
            AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0
    LOOP
        EXECUTE format(
            'GRANT EXECUTE ON PROCEDURE slot_reserve_committed(integer, integer, integer, integer, integer, '
            'bigint, text, bigint, bigint, bigint, text, integer, integer) TO %I',
            pg_get_userbyid(g.grantee));
    END LOOP;
END
$fn$;
