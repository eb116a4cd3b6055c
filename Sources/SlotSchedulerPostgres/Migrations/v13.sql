-- A repeated reservation is compared with the slot its request id first asked for, not with
-- where the booking is now: slot_take compared the booking's current socket, day and hour, so
-- once the booking had been moved (a reschedule) the repeat of its reservation was refused as
-- conflictingRequestID, where the in-memory stores and the reference model answer it with the
-- booking (found by schedule-sim run --target --check rules against the example service on
-- PostgreSQL). A trigger keeps the slot a booking was made for when it first moves, whichever
-- code moves it, so instances of every version agree once this runs.
-- ADD COLUMN without a default changes the catalog only: a moment's ACCESS EXCLUSIVE lock on
-- bookings, no rewrite.
ALTER TABLE bookings ADD COLUMN requested_socket_idx integer,
    ADD COLUMN requested_day integer,
    ADD COLUMN requested_hour integer;

-- NULL: the booking is where it was made.
CREATE FUNCTION bookings_keep_requested_slot() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF NEW.requested_socket_idx IS NULL THEN
        NEW.requested_socket_idx := OLD.socket_idx;
        NEW.requested_day := OLD.day;
        NEW.requested_hour := OLD.hour;
    END IF;
    RETURN NEW;
END
$fn$;

CREATE TRIGGER bookings_requested_slot BEFORE UPDATE OF socket_idx, day, hour ON bookings
    FOR EACH ROW
    WHEN ((OLD.socket_idx, OLD.day, OLD.hour) IS DISTINCT FROM (NEW.socket_idx, NEW.day, NEW.hour))
    EXECUTE FUNCTION bookings_keep_requested_slot();

-- Migration 7's slot_take, with the repeat compared with the requested slot.
CREATE OR REPLACE FUNCTION slot_take(
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
                IF coalesce(r.requested_socket_idx, r.socket_idx) = ANY (p_sockets)
                    AND coalesce(r.requested_day, r.day) = p_day AND coalesce(r.requested_hour, r.hour) = p_hour
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
