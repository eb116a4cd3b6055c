-- A user's cancelled and displaced bookings, read a page at a time (bookings(of:in:at:page:)),
-- newest first: bookings_user_active serves the three lists of active bookings. Like v8's,
-- CREATE INDEX holds a SHARE lock on bookings while it reads the table once.
CREATE INDEX bookings_user_closed ON bookings (user_id, start_at) WHERE status <> 'active';