-- Raw insert, none of the rules: one row per (socket, day, hour), duplicates ignored.
\set socket random(0, 1999)
\set day random(21975, 22249)
\set hour random(0, 23)
\set user random(1, 1000000)
INSERT INTO raw_bookings (socket_idx, day, hour, user_id) VALUES (:socket, :day, :hour, :user) ON CONFLICT DO NOTHING;
