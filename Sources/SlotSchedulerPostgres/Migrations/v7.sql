-- One take-a-slot function. Migrations 3 and 5 wrote the same steps three times, in
-- slot_reserve, slot_hold and slot_reserve_any: the policy version, a repeated request id,
-- the time rules' refusal, the socket-day lock, the socket's hours, a live hold, the taking
-- insert, the per-user lock, the limit (user_limit), overtaking an expired hold. slot_take
-- states them once, as the in-memory Decisions.reserve, reserveAny and hold do over one
-- checkSlot; the three functions keep their names, arguments and columns, so code of every
-- earlier version still runs against them, and are now one SELECT each.
--
-- p_kind: 'reserve' (one socket: a closed socket or a live hold is the refusal),
-- 'any' (the first of p_sockets that is open and not held live; none free is
-- noMatchingSocketFree) or 'hold' (one socket; no request id; a hold row, not a booking,
-- and the user's live holds counted against p_max_holds).
CREATE FUNCTION slot_take(
    p_kind text, p_policy_version integer, p_station integer, p_sockets integer[], p_masks integer[],
    p_day integer, p_hour integer, p_user bigint, p_request text, p_reminder bigint, p_now bigint,
    p_start bigint, p_expires bigint, p_time_reason text, p_limit integer, p_max_holds integer,
    OUT reason text, OUT booking_id bigint, OUT hold_id bigint, OUT chosen_socket integer,
    OUT start_at bigint, OUT created_at bigint, OUT reminder bigint, OUT status text,
    OUT is_repeat boolean, OUT applied_limit integer
) LANGUAGE plpgsql AS $fn$
DECLARE
    v_mask integer;
    v_locked boolean;
    v_hold bigint;
    v_expires bigint;
    v_n integer;
    v_one boolean := p_kind <> 'any';
    r record;
BEGIN
    is_repeat := false;
    IF (SELECT d.policy_version FROM deployment d) IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
    -- A booking that loses the insert to another for the same request id (the unique
    -- index on user and request id) looks for it again: the second round finds it.
    FOR attempt IN 1..2 LOOP
        IF p_request IS NOT NULL THEN
            SELECT b.* INTO r FROM bookings b WHERE b.user_id = p_user AND b.request_id = p_request;
            IF FOUND THEN
                IF r.socket_idx = ANY (p_sockets) AND r.day = p_day AND r.hour = p_hour
                    AND r.reminder IS NOT DISTINCT FROM p_reminder THEN
                    booking_id := r.id;
                    chosen_socket := r.socket_idx;
                    start_at := r.start_at;
                    created_at := r.created_at;
                    reminder := r.reminder;
                    status := r.status;
                    is_repeat := true;
                ELSE
                    reason := 'conflictingRequestID';
                END IF;
                RETURN;
            END IF;
        END IF;
        IF attempt = 2 THEN
            reason := CASE WHEN v_one THEN 'slotTaken' ELSE 'noMatchingSocketFree' END;
            RETURN;
        END IF;
        IF p_time_reason IS NOT NULL THEN
            reason := p_time_reason;
            RETURN;
        END IF;
        -- Bookings share the socket-day's lock (the unique index decides between them); a
        -- hold, which no index orders against a booking, takes it alone.
        FOR i IN 1 .. coalesce(array_length(p_sockets, 1), 0) LOOP
            IF p_kind = 'hold' THEN
                v_locked := pg_advisory_xact_lock(p_sockets[i], p_day) IS NULL;
            ELSE
                v_locked := pg_advisory_xact_lock_shared(p_sockets[i], p_day) IS NULL;
            END IF;
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(p_sockets, 1), 0) LOOP
            SELECT a.mask INTO v_mask FROM availability a WHERE a.socket_idx = p_sockets[i] AND a.day = p_day;
            IF NOT FOUND THEN
                v_mask := p_masks[i];
            END IF;
            IF v_mask & (1 << p_hour) = 0 THEN
                IF v_one THEN
                    reason := CASE WHEN v_mask = 0 THEN 'socketClosed' ELSE 'outsideOpeningHours' END;
                    RETURN;
                END IF;
                CONTINUE;
            END IF;
            IF p_kind = 'hold' AND EXISTS (
                SELECT 1 FROM bookings b WHERE b.day = p_day AND b.socket_idx = p_sockets[i]
                    AND b.hour = p_hour AND b.status = 'active') THEN
                reason := 'slotTaken';
                RETURN;
            END IF;
            v_hold := NULL;
            SELECT h.id, h.expires_at INTO v_hold, v_expires FROM holds h
            WHERE h.day = p_day AND h.socket_idx = p_sockets[i] AND h.hour = p_hour AND h.state = 'held';
            IF v_hold IS NOT NULL AND v_expires > p_now THEN
                IF v_one THEN
                    reason := 'slotHeld';
                    RETURN;
                END IF;
                CONTINUE;
            END IF;
            IF p_kind = 'hold' THEN
                chosen_socket := p_sockets[i];
                EXIT;
            END IF;
            INSERT INTO bookings AS b (station_idx, socket_idx, day, hour, user_id, start_at, created_at,
                                       request_id, reminder)
            VALUES (p_station, p_sockets[i], p_day, p_hour, p_user, p_start, p_now, p_request, p_reminder)
            ON CONFLICT DO NOTHING
            RETURNING b.id INTO booking_id;
            IF booking_id IS NOT NULL THEN
                chosen_socket := p_sockets[i];
                EXIT;
            END IF;
        END LOOP;
        EXIT WHEN booking_id IS NOT NULL OR chosen_socket IS NOT NULL;
    END LOOP;
    v_locked := pg_advisory_xact_lock(p_user) IS NULL;
    applied_limit := user_limit(p_user, p_now, p_limit);
    IF user_upcoming(p_user, p_now, booking_id) >= applied_limit THEN
        IF booking_id IS NOT NULL THEN
            DELETE FROM bookings b WHERE b.id = booking_id;
            booking_id := NULL;
        END IF;
        reason := 'userLimitReached';
        RETURN;
    END IF;
    IF p_kind = 'hold' THEN
        SELECT count(*) INTO v_n FROM holds h
        WHERE h.user_id = p_user AND h.state = 'held' AND h.expires_at > p_now;
        IF v_n >= p_max_holds THEN
            reason := 'holdLimitReached';
            RETURN;
        END IF;
    END IF;
    IF v_hold IS NOT NULL THEN
        UPDATE holds h SET state = 'overtaken' WHERE h.id = v_hold;
    END IF;
    IF p_kind = 'hold' THEN
        INSERT INTO holds AS h (station_idx, socket_idx, day, hour, user_id, start_at, created_at, expires_at,
                                reminder)
        VALUES (p_station, chosen_socket, p_day, p_hour, p_user, p_start, p_now, p_expires, p_reminder)
        RETURNING h.id INTO hold_id;
        RETURN;
    END IF;
    start_at := p_start;
    created_at := p_now;
    reminder := p_reminder;
    status := 'active';
END
$fn$;

-- Whoever may run slot_reserve may run slot_take, which it now calls: a deployment that
-- revoked EXECUTE from PUBLIC granted slot_reserve by name, and keeps working.
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
            'GRANT EXECUTE ON FUNCTION slot_take(text, integer, integer, integer[], integer[], integer, '
            'integer, bigint, text, bigint, bigint, bigint, bigint, text, integer, integer) TO %I',
            pg_get_userbyid(g.grantee));
    END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION slot_reserve(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT start_at bigint, OUT created_at bigint,
    OUT reminder bigint, OUT status text, OUT is_repeat boolean,
    OUT applied_limit integer
) LANGUAGE sql AS $fn$
    SELECT t.reason, t.booking_id, t.start_at, t.created_at, t.reminder, t.status, t.is_repeat,
        t.applied_limit
    FROM slot_take('reserve', p_policy_version, p_station, ARRAY[p_socket], ARRAY[p_regular_mask], p_day,
                   p_hour, p_user, p_request, p_reminder, p_now, p_start, NULL, p_time_reason, p_limit,
                   NULL) t;
$fn$;

CREATE OR REPLACE FUNCTION slot_hold(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_reminder bigint, p_now bigint, p_start bigint, p_expires bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer, p_max_holds integer,
    OUT reason text, OUT hold_id bigint, OUT applied_limit integer
) LANGUAGE sql AS $fn$
    SELECT t.reason, t.hold_id, t.applied_limit
    FROM slot_take('hold', p_policy_version, p_station, ARRAY[p_socket], ARRAY[p_regular_mask], p_day,
                   p_hour, p_user, NULL, p_reminder, p_now, p_start, p_expires, p_time_reason, p_limit,
                   p_max_holds) t;
$fn$;

CREATE OR REPLACE FUNCTION slot_reserve_any(
    p_policy_version integer, p_station integer, p_sockets integer[], p_masks integer[], p_day integer,
    p_hour integer, p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT chosen_socket integer, OUT start_at bigint,
    OUT created_at bigint, OUT reminder bigint, OUT status text, OUT is_repeat boolean,
    OUT applied_limit integer
) LANGUAGE sql AS $fn$
    SELECT t.reason, t.booking_id, t.chosen_socket, t.start_at, t.created_at, t.reminder, t.status,
        t.is_repeat, t.applied_limit
    FROM slot_take('any', p_policy_version, p_station, p_sockets, p_masks, p_day, p_hour, p_user,
                   p_request, p_reminder, p_now, p_start, NULL, p_time_reason, p_limit, NULL) t;
$fn$;