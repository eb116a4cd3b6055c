-- The same count as v3's, in PL/pgSQL: a LANGUAGE sql function that is not inlined is planned
-- again on every call, and slot_reserve calls this one on every reservation; PL/pgSQL keeps
-- its statements' plans for the session.
CREATE OR REPLACE FUNCTION user_upcoming(p_user bigint, p_now bigint, p_except bigint) RETURNS integer
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    RETURN (SELECT count(*) FROM bookings b
            WHERE b.user_id = p_user AND b.status = 'active' AND b.start_at > p_now - 3600
                AND b.id IS DISTINCT FROM p_except)
         + (SELECT count(*) FROM holds h
            WHERE h.user_id = p_user AND h.state = 'held' AND h.expires_at > p_now);
END
$fn$;