-- remindersDue reads the active bookings whose reminder fires in a window, by
-- start_at - reminder: this index makes it read what it finds, not every booking held.
-- It covers active bookings with a reminder only. CREATE INDEX holds a SHARE lock on
-- bookings while it reads the table once, so reservations wait for that read (a table of
-- a million bookings takes seconds); CONCURRENTLY cannot run in the migration's
-- transaction.
CREATE INDEX bookings_reminder_due ON bookings ((start_at - reminder))
    WHERE status = 'active' AND reminder IS NOT NULL;