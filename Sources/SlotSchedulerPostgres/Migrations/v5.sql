-- Check-ins: when a booking was checked in, by the caller's now (never the database clock).
-- NULL: not checked in. One not checked in by start + grace is a no-show, decided by now
-- alone: nothing is written for it.
ALTER TABLE bookings ADD COLUMN checked_in_at bigint;

-- The stored policy's check-in rules, for the functions below. Generated from policy_json,
-- so they change in the same statement as the policy and its version (the deployment,
-- updatePolicy): a function that checked the caller's policy version reads that policy's
-- rules. A policy stored before these fields has their defaults (as Policy decodes it);
-- no noShowLimit: the three no_show_* columns are NULL.
ALTER TABLE deployment
    ADD COLUMN early_check_in bigint
        GENERATED ALWAYS AS (coalesce((policy_json::jsonb ->> 'earlyCheckInSeconds')::bigint, 900)) STORED,
    ADD COLUMN no_show_grace bigint
        GENERATED ALWAYS AS (coalesce((policy_json::jsonb ->> 'noShowGraceSeconds')::bigint, 3600)) STORED,
    ADD COLUMN no_show_count integer
        GENERATED ALWAYS AS ((policy_json::jsonb -> 'noShowLimit' ->> 'noShows')::integer) STORED,
    ADD COLUMN no_show_window bigint
        GENERATED ALWAYS AS ((policy_json::jsonb -> 'noShowLimit' ->> 'days')::bigint * 86400) STORED,
    ADD COLUMN no_show_limit integer
        GENERATED ALWAYS AS ((policy_json::jsonb -> 'noShowLimit' ->> 'limit')::integer) STORED;

-- The limit that applies to p_user at p_now, as the in-memory Decisions.limit: p_limit (their
-- own), or the policy's no-show limit when that is lower and they have had at least
-- no_show_count no-shows (active, not checked in, start + grace at or before p_now) among
-- their bookings that started in the last no_show_window seconds. Called right after the
-- per-user lock, beside user_upcoming, so a reservation's count and limit are one decision.
-- Reads at most no_show_count rows (bookings_user_active).
CREATE FUNCTION user_limit(p_user bigint, p_now bigint, p_limit integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    d record;
    v_n integer;
BEGIN
    SELECT x.no_show_count, x.no_show_window, x.no_show_limit, x.no_show_grace INTO d FROM deployment x;
    IF d.no_show_limit IS NULL OR d.no_show_limit >= p_limit THEN
        RETURN p_limit;
    END IF;
    SELECT count(*) INTO v_n FROM (
        SELECT 1 FROM bookings b
        WHERE b.user_id = p_user AND b.status = 'active' AND b.checked_in_at IS NULL
            AND b.start_at >= p_now - d.no_show_window AND b.start_at <= p_now - d.no_show_grace
        LIMIT d.no_show_count) n;
    RETURN CASE WHEN v_n >= d.no_show_count THEN d.no_show_limit ELSE p_limit END;
END
$fn$;

-- A check-in in one statement, with the checks of the in-memory Decisions.checkIn in its
-- order: the booking (unknownBooking), its owner (notOwner), active (alreadyCancelled), a
-- check-in already made (a repeat: nothing changes, checked_at is the first check-in), then
-- the window from start - early_check_in (checkInNotOpen) until start + no_show_grace,
-- excluded (checkInClosed). The row lock orders it with cancels, moves and other check-ins
-- of the booking.
CREATE FUNCTION booking_check_in(
    p_policy_version integer, p_booking bigint, p_user bigint, p_now bigint,
    OUT reason text, OUT checked_at bigint
) LANGUAGE plpgsql AS $fn$
DECLARE
    d record;
    r record;
BEGIN
    SELECT x.policy_version, x.early_check_in, x.no_show_grace INTO d FROM deployment x;
    IF d.policy_version IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
    SELECT b.user_id, b.status, b.start_at, b.checked_in_at INTO r FROM bookings b
    WHERE b.id = p_booking FOR UPDATE;
    IF NOT FOUND THEN
        reason := 'unknownBooking';
    ELSIF r.user_id <> p_user THEN
        reason := 'notOwner';
    ELSIF r.status <> 'active' THEN
        reason := 'alreadyCancelled';
    ELSIF r.checked_in_at IS NOT NULL THEN
        checked_at := r.checked_in_at;
    ELSIF p_now < r.start_at - d.early_check_in THEN
        reason := 'checkInNotOpen';
    ELSIF r.start_at + d.no_show_grace <= p_now THEN
        reason := 'checkInClosed';
    ELSE
        UPDATE bookings SET checked_in_at = p_now WHERE id = p_booking;
        checked_at := p_now;
    END IF;
END
$fn$;

-- The three functions that take a slot, as in v3, with the limit from user_limit (the
-- no-show limit) and that limit returned as applied_limit (the refusal names it). A new
-- result column changes the function's type, so each is dropped and created again; callers
-- select their columns by name, so code of the previous version still runs against them.
DROP FUNCTION slot_reserve(integer, integer, integer, integer, integer, bigint, text, bigint, bigint, bigint,
                           text, integer, integer);
CREATE FUNCTION slot_reserve(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT start_at bigint, OUT created_at bigint,
    OUT reminder bigint, OUT status text, OUT is_repeat boolean,
    OUT applied_limit integer
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
    applied_limit := user_limit(p_user, p_now, p_limit);
    IF user_upcoming(p_user, p_now, booking_id) >= applied_limit THEN
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

DROP FUNCTION slot_hold(integer, integer, integer, integer, integer, bigint, bigint, bigint, bigint, bigint,
                        text, integer, integer, integer);
CREATE FUNCTION slot_hold(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_reminder bigint, p_now bigint, p_start bigint, p_expires bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer, p_max_holds integer,
    OUT reason text, OUT hold_id bigint, OUT applied_limit integer
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
    applied_limit := user_limit(p_user, p_now, p_limit);
    IF user_upcoming(p_user, p_now, NULL) >= applied_limit THEN
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

DROP FUNCTION slot_reserve_any(integer, integer, integer[], integer[], integer, integer, bigint, text, bigint,
                               bigint, bigint, text, integer);
CREATE FUNCTION slot_reserve_any(
    p_policy_version integer, p_station integer, p_sockets integer[], p_masks integer[], p_day integer,
    p_hour integer, p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT chosen_socket integer, OUT start_at bigint,
    OUT created_at bigint, OUT reminder bigint, OUT status text, OUT is_repeat boolean,
    OUT applied_limit integer
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
    applied_limit := user_limit(p_user, p_now, p_limit);
    IF user_upcoming(p_user, p_now, booking_id) >= applied_limit THEN
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