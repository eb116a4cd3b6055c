-- Holds: a slot kept for one user until expires_at, decided by the caller's now (never the
-- database clock). At most one current ('held') hold per slot; a hold that expired and whose
-- slot was then taken (booked, held again, moved into) is 'overtaken', so a late confirm of
-- it is refused as expired, as the in-memory scheduler refuses a hold that is not current.
CREATE TABLE holds (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    station_idx integer NOT NULL,
    socket_idx integer NOT NULL,
    day integer NOT NULL,
    hour integer NOT NULL CHECK (hour BETWEEN 0 AND 23),
    user_id bigint NOT NULL,
    start_at bigint NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    reminder bigint,
    state text NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'confirmed', 'released', 'overtaken')),
    booking_id bigint REFERENCES bookings (id)
);
CREATE UNIQUE INDEX holds_current_slot ON holds (day, socket_idx, hour) WHERE state = 'held';
-- A user's latest hold of a slot (confirm, release), and their current holds (the limits).
CREATE INDEX holds_user_slot ON holds (user_id, socket_idx, day, hour, id);
CREATE INDEX holds_user_current ON holds (user_id, expires_at) WHERE state = 'held';

-- Reschedule request ids, in a namespace of their own: a repeat returns the booking as it is.
CREATE TABLE reschedule_requests (
    user_id bigint NOT NULL,
    request_id text NOT NULL,
    booking_id bigint NOT NULL REFERENCES bookings (id),
    socket_idx integer NOT NULL,
    day integer NOT NULL,
    hour integer NOT NULL,
    PRIMARY KEY (user_id, request_id)
);

-- What the user's limit counts at p_now: upcoming active bookings (not p_except) and live holds.
-- Called under the per-user advisory lock, in a statement after it.
CREATE FUNCTION user_upcoming(p_user bigint, p_now bigint, p_except bigint) RETURNS integer
LANGUAGE sql STABLE AS $fn$
    SELECT ((SELECT count(*) FROM bookings b
             WHERE b.user_id = p_user AND b.status = 'active' AND b.start_at > p_now - 3600
                 AND b.id IS DISTINCT FROM p_except)
          + (SELECT count(*) FROM holds h
             WHERE h.user_id = p_user AND h.state = 'held' AND h.expires_at > p_now))::integer
$fn$;

-- Same arguments, results and order of checks as v2, and holds: a slot with a live hold is
-- refused as slotHeld (after availability, as the in-memory occupancy check), live holds count
-- against the limit, and an expired hold whose slot this booking takes is overtaken. Holds take
-- the socket-day lock exclusively, so the hold check here cannot race a new hold.
CREATE OR REPLACE FUNCTION slot_reserve(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT start_at bigint, OUT created_at bigint,
    OUT reminder bigint, OUT status text, OUT is_repeat boolean
) LANGUAGE plpgsql AS $fn$
DECLARE
    v_mask integer;
    v_locked boolean;
    v_hold bigint;
    v_expires bigint;
    r record;
BEGIN
    is_repeat := false;
    IF (SELECT d.policy_version FROM deployment d) IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
    FOR attempt IN 1..2 LOOP
        IF p_request IS NOT NULL THEN
            SELECT b.* INTO r FROM bookings b WHERE b.user_id = p_user AND b.request_id = p_request;
            IF FOUND THEN
                IF r.socket_idx = p_socket AND r.day = p_day AND r.hour = p_hour
                    AND r.reminder IS NOT DISTINCT FROM p_reminder THEN
                    booking_id := r.id;
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
            reason := 'slotTaken';
            RETURN;
        END IF;
        IF p_time_reason IS NOT NULL THEN
            reason := p_time_reason;
            RETURN;
        END IF;
        v_locked := pg_advisory_xact_lock_shared(p_socket, p_day) IS NULL;
        SELECT a.mask INTO v_mask FROM availability a WHERE a.socket_idx = p_socket AND a.day = p_day;
        IF NOT FOUND THEN
            v_mask := p_regular_mask;
        END IF;
        IF v_mask & (1 << p_hour) = 0 THEN
            reason := CASE WHEN v_mask = 0 THEN 'socketClosed' ELSE 'outsideOpeningHours' END;
            RETURN;
        END IF;
        SELECT h.id, h.expires_at INTO v_hold, v_expires FROM holds h
        WHERE h.day = p_day AND h.socket_idx = p_socket AND h.hour = p_hour AND h.state = 'held';
        IF v_hold IS NOT NULL AND v_expires > p_now THEN
            reason := 'slotHeld';
            RETURN;
        END IF;
        IF p_request IS NULL THEN
            INSERT INTO bookings AS b (station_idx, socket_idx, day, hour, user_id, start_at, created_at,
                                       request_id, reminder)
            VALUES (p_station, p_socket, p_day, p_hour, p_user, p_start, p_now, NULL, p_reminder)
            ON CONFLICT (day, socket_idx, hour) WHERE b.status = 'active' DO NOTHING
            RETURNING b.id INTO booking_id;
        ELSE
            INSERT INTO bookings AS b (station_idx, socket_idx, day, hour, user_id, start_at, created_at,
                                       request_id, reminder)
            VALUES (p_station, p_socket, p_day, p_hour, p_user, p_start, p_now, p_request, p_reminder)
            ON CONFLICT DO NOTHING
            RETURNING b.id INTO booking_id;
        END IF;
        EXIT WHEN booking_id IS NOT NULL;
    END LOOP;
    v_locked := pg_advisory_xact_lock(p_user) IS NULL;
    IF user_upcoming(p_user, p_now, booking_id) >= p_limit THEN
        DELETE FROM bookings b WHERE b.id = booking_id;
        booking_id := NULL;
        reason := 'userLimitReached';
        RETURN;
    END IF;
    IF v_hold IS NOT NULL THEN
        UPDATE holds h SET state = 'overtaken' WHERE h.id = v_hold;
    END IF;
    start_at := p_start;
    created_at := p_now;
    reminder := p_reminder;
    status := 'active';
END
$fn$;

-- A hold, in one statement. Checks, in the order of the in-memory Decisions.hold: time reason,
-- availability, a booking (slotTaken), a live hold, the user's own included (slotHeld), the
-- limit with live holds counted, then the hold limit. The socket-day lock is exclusive: no
-- reservation, move or other hold of the socket-day runs between the checks and the insert.
CREATE FUNCTION slot_hold(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_reminder bigint, p_now bigint, p_start bigint, p_expires bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer, p_max_holds integer,
    OUT reason text, OUT hold_id bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
    v_mask integer;
    v_locked boolean;
    v_hold bigint;
    v_expires bigint;
    v_n integer;
BEGIN
    IF (SELECT d.policy_version FROM deployment d) IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
    IF p_time_reason IS NOT NULL THEN
        reason := p_time_reason;
        RETURN;
    END IF;
    v_locked := pg_advisory_xact_lock(p_socket, p_day) IS NULL;
    SELECT a.mask INTO v_mask FROM availability a WHERE a.socket_idx = p_socket AND a.day = p_day;
    IF NOT FOUND THEN
        v_mask := p_regular_mask;
    END IF;
    IF v_mask & (1 << p_hour) = 0 THEN
        reason := CASE WHEN v_mask = 0 THEN 'socketClosed' ELSE 'outsideOpeningHours' END;
        RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM bookings b WHERE b.day = p_day AND b.socket_idx = p_socket
                   AND b.hour = p_hour AND b.status = 'active') THEN
        reason := 'slotTaken';
        RETURN;
    END IF;
    SELECT h.id, h.expires_at INTO v_hold, v_expires FROM holds h
    WHERE h.day = p_day AND h.socket_idx = p_socket AND h.hour = p_hour AND h.state = 'held';
    IF v_hold IS NOT NULL AND v_expires > p_now THEN
        reason := 'slotHeld';
        RETURN;
    END IF;
    v_locked := pg_advisory_xact_lock(p_user) IS NULL;
    IF user_upcoming(p_user, p_now, NULL) >= p_limit THEN
        reason := 'userLimitReached';
        RETURN;
    END IF;
    SELECT count(*) INTO v_n FROM holds h
    WHERE h.user_id = p_user AND h.state = 'held' AND h.expires_at > p_now;
    IF v_n >= p_max_holds THEN
        reason := 'holdLimitReached';
        RETURN;
    END IF;
    IF v_hold IS NOT NULL THEN
        UPDATE holds h SET state = 'overtaken' WHERE h.id = v_hold;
    END IF;
    INSERT INTO holds AS h (station_idx, socket_idx, day, hour, user_id, start_at, created_at, expires_at,
                            reminder)
    VALUES (p_station, p_socket, p_day, p_hour, p_user, p_start, p_now, p_expires, p_reminder)
    RETURNING h.id INTO hold_id;
END
$fn$;

-- Any free socket: the first of p_sockets (the matching sockets in catalog order) that is open,
-- not held by a live hold and not booked, under shared socket-day locks on every candidate
-- (taken in that order). The insert is the pick: a concurrent request's uncommitted booking
-- of a candidate makes this one wait for it, then move on, so two requests never share a
-- socket and every candidate fills before noMatchingSocketFree. Then the limit, as slot_reserve.
-- chosen_socket is set with userLimitReached too (the refusal names the socket it would take).
CREATE FUNCTION slot_reserve_any(
    p_policy_version integer, p_station integer, p_sockets integer[], p_masks integer[], p_day integer,
    p_hour integer, p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT chosen_socket integer, OUT start_at bigint,
    OUT created_at bigint, OUT reminder bigint, OUT status text, OUT is_repeat boolean
) LANGUAGE plpgsql AS $fn$
DECLARE
    v_mask integer;
    v_locked boolean;
    v_hold bigint;
    v_expires bigint;
    v_socket integer;
    r record;
BEGIN
    is_repeat := false;
    IF (SELECT d.policy_version FROM deployment d) IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
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
            reason := 'noMatchingSocketFree';
            RETURN;
        END IF;
        IF p_time_reason IS NOT NULL THEN
            reason := p_time_reason;
            RETURN;
        END IF;
        FOREACH v_socket IN ARRAY p_sockets LOOP
            v_locked := pg_advisory_xact_lock_shared(v_socket, p_day) IS NULL;
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(p_sockets, 1), 0) LOOP
            SELECT a.mask INTO v_mask FROM availability a WHERE a.socket_idx = p_sockets[i] AND a.day = p_day;
            IF NOT FOUND THEN
                v_mask := p_masks[i];
            END IF;
            CONTINUE WHEN v_mask & (1 << p_hour) = 0;
            v_hold := NULL;
            SELECT h.id, h.expires_at INTO v_hold, v_expires FROM holds h
            WHERE h.day = p_day AND h.socket_idx = p_sockets[i] AND h.hour = p_hour AND h.state = 'held';
            CONTINUE WHEN v_hold IS NOT NULL AND v_expires > p_now;
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
        EXIT WHEN booking_id IS NOT NULL;
    END LOOP;
    v_locked := pg_advisory_xact_lock(p_user) IS NULL;
    IF user_upcoming(p_user, p_now, booking_id) >= p_limit THEN
        DELETE FROM bookings b WHERE b.id = booking_id;
        booking_id := NULL;
        reason := 'userLimitReached';
        RETURN;
    END IF;
    IF v_hold IS NOT NULL THEN
        UPDATE holds h SET state = 'overtaken' WHERE h.id = v_hold;
    END IF;
    start_at := p_start;
    created_at := p_now;
    reminder := p_reminder;
    status := 'active';
END
$fn$;