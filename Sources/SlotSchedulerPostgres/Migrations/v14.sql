-- Check-out and access codes. The owner of a checked-in booking ends its session
-- (PostgresBookingService.checkOut): the booking becomes 'fulfilled', with checked_out_at (the
-- caller's now, never the database clock). Like a cancelled one it then leaves the active-slot
-- index (its slot can be booked again, as a cancel frees it) and every count of a user's bookings
-- (user_upcoming, user_limit: status = 'active'), so it no longer counts against the user's limit.
-- No function that takes a slot or counts bookings changes: each asks for status = 'active'.
-- Code before this migration cannot read a 'fulfilled' booking: upgrade every instance first.
--
-- The user's lists read a page at a time: the fulfilled list is the active checked-in bookings
-- (bookings_user_active) and the fulfilled ones (bookings_user_fulfilled, new); the cancelled list
-- is the cancelled and displaced ones (bookings_user_cancelled, which replaces migration 9's
-- bookings_user_closed: status <> 'active' now holds the fulfilled bookings too, which would
-- crowd the cancelled list's reads). Like migration 9's, CREATE INDEX holds a SHARE lock on
-- bookings while it reads the table once; the indexes are built before the ALTER TABLE below,
-- whose ACCESS EXCLUSIVE lock is then held only for the moment until this migration commits.
CREATE INDEX bookings_user_fulfilled ON bookings (user_id, start_at) WHERE status = 'fulfilled';
CREATE INDEX bookings_user_cancelled ON bookings (user_id, start_at) WHERE status IN ('cancelled', 'displaced');
DROP INDEX bookings_user_closed;

-- The status check of migration 1, with 'fulfilled'. NOT VALID: the rows stored passed the
-- stricter check, so no scan of the table under the ACCESS EXCLUSIVE lock; new and changed rows
-- are checked. ADD COLUMN without a default changes the catalog only.
ALTER TABLE bookings DROP CONSTRAINT bookings_status_check,
    ADD CONSTRAINT bookings_status_check
        CHECK (status IN ('active', 'cancelled', 'displaced', 'fulfilled')) NOT VALID,
    ADD COLUMN checked_out_at bigint;

-- A check-out in one statement, with the checks of the in-memory Decisions.checkOut in its
-- order: the booking (unknownBooking), its owner (notOwner), not ended (alreadyCheckedOut when
-- fulfilled, alreadyCancelled when cancelled or displaced), checked in (notCheckedIn). Not
-- repeatable: a second check-out is refused alreadyCheckedOut. The row lock orders it with the
-- booking's check-ins, cancels and moves. Returns the refusal's reason, or NULL when done.
CREATE FUNCTION booking_check_out(
    p_policy_version integer, p_booking bigint, p_user bigint, p_now bigint,
    OUT reason text
) LANGUAGE plpgsql AS $fn$
DECLARE
    r record;
BEGIN
    IF (SELECT d.policy_version FROM deployment d) IS DISTINCT FROM p_policy_version THEN
        reason := 'stalePolicy';
        RETURN;
    END IF;
    SELECT b.user_id, b.status, b.checked_in_at INTO r FROM bookings b WHERE b.id = p_booking FOR UPDATE;
    IF NOT FOUND THEN
        reason := 'unknownBooking';
    ELSIF r.user_id <> p_user THEN
        reason := 'notOwner';
    ELSIF r.status = 'fulfilled' THEN
        reason := 'alreadyCheckedOut';
    ELSIF r.status <> 'active' THEN
        reason := 'alreadyCancelled';
    ELSIF r.checked_in_at IS NULL THEN
        reason := 'notCheckedIn';
    ELSE
        UPDATE bookings SET status = 'fulfilled', checked_out_at = p_now WHERE id = p_booking;
    END IF;
END
$fn$;

-- Migration 5's check-in with the socket's access code, and a fulfilled booking refused as
-- checked out. The codes are the catalog's (Socket.accessCode, in catalog_json and
-- catalog_record): the caller compares the code presented with its catalog's, whose version
-- it passes, and says whether it was right (p_code_accepted); a catalog change bumps the
-- version, so a stale caller gets stalePolicy and compares again. Checks, in the order of the
-- in-memory Decisions.checkIn: the booking (unknownBooking), its owner (notOwner), not ended
-- (alreadyCheckedOut, alreadyCancelled), the code (wrongAccessCode), a check-in already made
-- (a repeat: nothing changes), then the window (checkInNotOpen, checkInClosed). Migration 5's
-- function, without the code, stays for code of earlier versions.
CREATE FUNCTION booking_check_in(
    p_policy_version integer, p_booking bigint, p_user bigint, p_now bigint, p_code_accepted boolean,
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
    ELSIF r.status = 'fulfilled' THEN
        reason := 'alreadyCheckedOut';
    ELSIF r.status <> 'active' THEN
        reason := 'alreadyCancelled';
    ELSIF NOT p_code_accepted THEN
        reason := 'wrongAccessCode';
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
