-- Catalog changes on a live deployment (PostgresBookingService.changeCatalog). Station and
-- socket indices are for life: a change appends new ones and marks retired ones, so no booking
-- row is ever renumbered. The deployment row keeps the catalog as a Catalog.Record (the
-- retired entries and every index); catalog_json stays the list in service. A change bumps
-- policy_version, which every command passes, so instances reload the catalog on their next
-- command.
ALTER TABLE deployment ADD COLUMN catalog_record text;
ALTER TABLE stations ADD COLUMN retired boolean NOT NULL DEFAULT false;
ALTER TABLE sockets ADD COLUMN retired boolean NOT NULL DEFAULT false;

CREATE TABLE catalog_changes (
    revision integer PRIMARY KEY,
    at bigint NOT NULL,
    stations_json text NOT NULL,
    displaced integer NOT NULL,
    dropped_holds integer NOT NULL
);

-- A booking or hold written by a transaction that a catalog change waited for (its LOCK TABLE
-- ... IN SHARE MODE) may have been decided under the catalog before: refused here, as a
-- serialization failure, when its socket is retired or its hour closed by the new regular hours
-- on a date no availability change set. The caller repeats the call, meets the new
-- policy_version, reloads the catalog and decides again.
CREATE FUNCTION catalog_guard() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    v record;
BEGIN
    SELECT s.retired, s.regular_mask INTO v FROM sockets s WHERE s.idx = NEW.socket_idx;
    IF NOT FOUND OR v.retired OR ((v.regular_mask >> NEW.hour) & 1 = 0 AND NOT EXISTS (
        SELECT 1 FROM availability a WHERE a.socket_idx = NEW.socket_idx AND a.day = NEW.day))
    THEN
        RAISE EXCEPTION 'socket % hour % is not open in the catalog in force', NEW.socket_idx, NEW.hour
            USING ERRCODE = '40001';
    END IF;
    RETURN NEW;
END
$fn$;

CREATE TRIGGER bookings_catalog_guard BEFORE INSERT OR UPDATE OF socket_idx, day, hour ON bookings
    FOR EACH ROW WHEN (NEW.status = 'active') EXECUTE FUNCTION catalog_guard();
CREATE TRIGGER holds_catalog_guard BEFORE INSERT OR UPDATE OF socket_idx, day, hour ON holds
    FOR EACH ROW WHEN (NEW.state = 'held') EXECUTE FUNCTION catalog_guard();

-- The catalog's tables as a change leaves them: stations and sockets upserted by index, with
-- their retired flags and regular hours. The runtime role may not write these tables (its
-- grants revoke it); a catalog change writes them through this function, which runs with the
-- owner's rights and a fixed search path.
CREATE FUNCTION catalog_index(
    p_station_idx integer[], p_station_ids text[], p_zones text[], p_station_retired boolean[],
    p_socket_idx integer[], p_socket_station integer[], p_socket_ids text[], p_masks integer[],
    p_socket_retired boolean[]
) RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
    INSERT INTO stations (idx, id, time_zone, retired)
    SELECT * FROM unnest(p_station_idx, p_station_ids, p_zones, p_station_retired)
    ON CONFLICT (idx) DO UPDATE SET time_zone = excluded.time_zone, retired = excluded.retired;
    INSERT INTO sockets (idx, station_idx, id, regular_mask, retired)
    SELECT * FROM unnest(p_socket_idx, p_socket_station, p_socket_ids, p_masks, p_socket_retired)
    ON CONFLICT (idx) DO UPDATE SET regular_mask = excluded.regular_mask, retired = excluded.retired;
$fn$;
