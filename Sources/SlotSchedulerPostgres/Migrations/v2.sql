-- The unique active-slot index without station_idx (socket indices are global, so it added
-- nothing to uniqueness) and with day first: the same guarantee, and the per-day reads
-- (dayView, availability changes: one day, a range or list of sockets) get a tight index
-- range; the old index led with station_idx, which availability changes do not filter on.
-- Built before the old one is dropped, in the migration's transaction.
CREATE UNIQUE INDEX bookings_active_slot ON bookings (day, socket_idx, hour) WHERE status = 'active';
DROP INDEX bookings_one_active_per_slot;

-- The user's limit is now checked by counting their upcoming active bookings under a
-- per-user advisory lock (see slot_reserve), so no counter row is written per reservation.
-- The table stays for instances still running v1 code during an upgrade, whose cancellations
-- still decrement it (so it may now go below zero); nothing reads it.
COMMENT ON TABLE user_quota IS 'unused since migration 2 (slot_reserve counts upcoming bookings)';
ALTER TABLE user_quota DROP CONSTRAINT IF EXISTS user_quota_n_check;

-- Same arguments, results and order of checks as v1. Cheaper: the limit is a count under a
-- per-user lock instead of a counter row upsert (two fewer writes and WAL records per booking),
-- the locks are taken by plain expressions (no executor start-up), and without a request id
-- the insert names its only possible conflict, the active slot.
CREATE OR REPLACE FUNCTION slot_reserve(
    p_policy_version integer, p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_request text, p_reminder bigint, p_now bigint, p_start bigint,
    p_time_reason text, p_regular_mask integer, p_limit integer,
    OUT reason text, OUT booking_id bigint, OUT start_at bigint, OUT created_at bigint,
    OUT reminder bigint, OUT status text, OUT is_repeat boolean
) LANGUAGE plpgsql AS $fn$
DECLARE
    v_mask integer;
    v_n integer;
    v_locked boolean;
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
        -- Shared with other reservations of this socket-day, exclusive with availability changes.
        -- A statement of its own, so the availability is read with a snapshot taken after it.
        v_locked := pg_advisory_xact_lock_shared(p_socket, p_day) IS NULL;
        SELECT a.mask INTO v_mask FROM availability a WHERE a.socket_idx = p_socket AND a.day = p_day;
        IF NOT FOUND THEN
            v_mask := p_regular_mask;
        END IF;
        IF v_mask & (1 << p_hour) = 0 THEN
            reason := CASE WHEN v_mask = 0 THEN 'socketClosed' ELSE 'outsideOpeningHours' END;
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
        -- Inserted: go on to the limit. Not inserted: the slot is taken, or a concurrent twin with
        -- the same request id just committed, which the second pass reports.
        EXIT WHEN booking_id IS NOT NULL;
    END LOOP;
    -- The limit, in this transaction: this user's reservations are serialised by a lock on the
    -- user id, taken in a statement of its own so that the count's snapshot sees every booking
    -- committed by an earlier holder; the count is of upcoming (not yet ended at now) active
    -- bookings, as the in-memory ledger counts. (The one-bigint advisory key space is apart
    -- from the two-integer one of the socket-day locks.)
    v_locked := pg_advisory_xact_lock(p_user) IS NULL;
    SELECT count(*) INTO v_n FROM bookings b
    WHERE b.user_id = p_user AND b.status = 'active' AND b.start_at > p_now - 3600 AND b.id <> booking_id;
    IF v_n >= p_limit THEN
        DELETE FROM bookings b WHERE b.id = booking_id;
        booking_id := NULL;
        reason := 'userLimitReached';
        RETURN;
    END IF;
    start_at := p_start;
    created_at := p_now;
    reminder := p_reminder;
    status := 'active';
END
$fn$;