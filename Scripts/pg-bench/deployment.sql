-- The bench's deployment, as the store registers one: the slot space reserve.sql draws
-- (200 stations of 10 sockets, socket k at station k / 10, every hour open). Migration 11's
-- catalog guard reads sockets on every insert, so the bench pays what the store pays.
INSERT INTO deployment (catalog_json, policy_json, policy_version) VALUES ('[]', '{}', 1);
INSERT INTO stations (idx, id, time_zone) SELECT s, 's' || s, 'UTC' FROM generate_series(0, 199) s;
INSERT INTO sockets (idx, station_idx, id, regular_mask)
SELECT k, k / 10, 'k' || k, 16777215 FROM generate_series(0, 1999) k;
