#!/usr/bin/env bash
# What PostgreSQL spends on a reservation, without the service: pgbench (16 clients, extended
# protocol, as PostgresNIO sends) against the schema the PostgreSQL store creates for the speed
# catalog (100 stations x 10 sockets, 28 days), ROUNDS rounds of DURATION seconds alternating:
#   insert        one INSERT of a line into a table with a primary key (speed.sh's `insert`);
#   row-columns   one INSERT of a booking row (random slot and user, ON CONFLICT DO NOTHING) into
#                 a table with the columns, defaults, checks and primary key of `bookings` only;
#   row-indexes   the same into a table that also has every index of `bookings`;
#   row           the same into `bookings` itself: its catalog trigger too;
#   booking-row   a procedure that only inserts the booking row and commits (as `row`, through
#                 a CALL that commits, as the store's reservation is sent);
#   reservation   CALL slot_reserve_committed, as the store sends it (a random slot and user);
#   reservation-prepared  the same CALL as a prepared statement (pgbench -M prepared): what the
#                 server would save if the store could prepare it (see the README's speed notes).
# Each step of the list adds one thing to the one before, so the differences say what each
# costs. For each: transactions a second and PostgreSQL's CPU per transaction (every postgres
# process, and the children the server reaped). The service's own CPU per request is in
# speed.sh's table. KINDS (all of the above) picks some.
#
#   Scripts/with-postgres.sh Examples/BookingService/Scripts/database-cost.sh   (from the root,
#   after SLOTSCHEDULER_CI_GRAPH=1 swift build -c release --traits Postgres,Observability
#   --product BookingService)
#
# BIN (.build/release), ROUNDS (3), DURATION (6). Needs pgbench (PostgreSQL's packages have it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-$ROOT/.build/release}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-6}
[ -n "${SLOTSCHEDULER_DATABASE_URL:-}" ] || { echo "error: run under Scripts/with-postgres.sh" >&2; exit 1; }
PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
[ -x "$PGBENCH" ] || { echo "error: pgbench not found" >&2; exit 1; }
WORK=$(mktemp -d -t database-cost.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT
SCHEMA=cost_$$

# The store creates its schema and catalog when it opens: start the service once, then stop it.
python3 - "$WORK/speed.json" <<'PY'
import json, sys
stations = [{"id": f"S{i}", "name": f"S{i}", "city": "London", "timeZone": "Europe/London",
             "sockets": [{"id": str(k), "connector": "CCS", "powerKW": 50} for k in range(10)]} for i in range(100)]
json.dump({"version": 1, "name": "speed", "seed": 1, "stations": stations,
           "policy": {"maxUpcomingBookings": 100000, "rollingDays": 30},
           "clock": {"start": "2026-01-01T00:00:00Z", "stepSeconds": 1}, "users": {"count": 1000, "firstID": 1}},
          open(sys.argv[1], "w"))
PY
"$BIN/BookingService" --scenario "$WORK/speed.json" --port 0 --auth none \
    --store "$SLOTSCHEDULER_DATABASE_URL?schema=$SCHEMA" >"$WORK/service.log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do grep -q '^listening on' "$WORK/service.log" && break; sleep 0.1; done
grep -q '^listening on' "$WORK/service.log" || { cat "$WORK/service.log"; echo "error: the service did not start" >&2; exit 1; }
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=

psql -q -v ON_ERROR_STOP=1 <<SQL
CREATE TABLE IF NOT EXISTS public.cost_baseline (id bigserial PRIMARY KEY, body text NOT NULL);
CREATE TABLE $SCHEMA.cost_row_columns (LIKE $SCHEMA.bookings INCLUDING DEFAULTS INCLUDING IDENTITY
    INCLUDING CONSTRAINTS, PRIMARY KEY (id));
CREATE TABLE $SCHEMA.cost_row_indexes (LIKE $SCHEMA.bookings INCLUDING ALL);
CREATE PROCEDURE $SCHEMA.cost_booking_row(p_station integer, p_socket integer, p_day integer, p_hour integer,
    p_user bigint, p_now bigint, p_start bigint, OUT booking_id bigint)
LANGUAGE plpgsql AS \$fn\$
BEGIN
    INSERT INTO bookings AS b (station_idx, socket_idx, day, hour, user_id, start_at, created_at)
    VALUES (p_station, p_socket, p_day, p_hour, p_user, p_start, p_now)
    ON CONFLICT DO NOTHING RETURNING b.id INTO booking_id;
    COMMIT;
END
\$fn\$;
SQL
NOW=$(date +%s)
FIRST_DAY=$((NOW / 86400 + 2))
VERSION=$(psql -Atc "SELECT policy_version FROM $SCHEMA.deployment")
SLOT="\\set st random(0, 99)
\\set k random(0, 9)
\\set d random($FIRST_DAY, $((FIRST_DAY + 27)))
\\set h random(0, 23)
\\set u random(1, 1000)
\\set sock :st * 10 + :k
\\set start :d * 86400 + :h * 3600"
echo "INSERT INTO public.cost_baseline (body) VALUES ('{\"station\":\"S1\",\"socket\":\"2\",\"date\":\"2026-12-05\",\"hour\":3}');" \
    >"$WORK/insert.sql"
for table in cost_row_columns cost_row_indexes bookings; do
    kind=$(case $table in cost_row_columns) echo row-columns ;; cost_row_indexes) echo row-indexes ;; *) echo row ;; esac)
    printf '%s\nINSERT INTO %s (station_idx, socket_idx, day, hour, user_id, start_at, created_at) VALUES (:st, :sock, :d, :h, :u::bigint, :start::bigint, %s::bigint) ON CONFLICT DO NOTHING;\n' \
        "$SLOT" "$table" "$NOW" >"$WORK/$kind.sql"
done
printf '%s\nCALL cost_booking_row(:st, :sock, :d, :h, :u::bigint, %s::bigint, :start::bigint, NULL);\n' \
    "$SLOT" "$NOW" >"$WORK/booking-row.sql"
# slot_reserve_committed's arguments as PostgresBookingService.book sends them: no request id,
# no reminder, no time refusal, every hour open, a limit no user reaches.
printf '%s\nCALL slot_reserve_committed(%s, :st, :sock, :d, :h, :u::bigint, NULL, NULL, %s::bigint, :start::bigint, NULL, 16777215, 100000, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);\n' \
    "$SLOT" "$VERSION" "$NOW" >"$WORK/reservation.sql"
cp "$WORK/reservation.sql" "$WORK/reservation-prepared.sql"

source "$ROOT/Examples/BookingService/Scripts/cpu-ticks.sh"
: >"$WORK/results"
for round in $(seq 1 "$ROUNDS"); do
    for kind in ${KINDS:-insert row-columns row-indexes row booking-row reservation reservation-prepared}; do
        mode=$([ "$kind" = reservation-prepared ] && echo prepared || echo extended)
        before=$(postgres_ticks)
        PGOPTIONS="-c search_path=$SCHEMA" "$PGBENCH" -n -M "$mode" -c 16 -j 2 -T "$DURATION" \
            -f "$WORK/$kind.sql" >"$WORK/pgbench.out" 2>&1 || { cat "$WORK/pgbench.out"; exit 1; }
        used=$(($(postgres_ticks) - before))
        awk -v k="$kind" -v r="$round" -v t="$used" -v hz="$(getconf CLK_TCK)" '
            /number of transactions actually processed/ {split($NF, n, "/"); count = n[1]}
            /^tps/ {tps = $3}
            END {printf "%s %s %.0f %.4f\n", k, r, tps, t * 1000 / hz / count}' "$WORK/pgbench.out" |
            tee -a "$WORK/results"
    done
done
python3 - "$WORK/results" "$ROUNDS" "$DURATION" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, _, tps, cpu = line.split()
    rows.setdefault(kind, []).append((float(tps), float(cpu)))
print(f"\n{sys.argv[2]} rounds of {sys.argv[3]} s, pgbench -c 16; medians")
print("| transaction | per second | PostgreSQL CPU ms |")
print("|---|---:|---:|")
for kind, values in rows.items():
    print(f"| {kind} | {statistics.median(v[0] for v in values):,.0f} | {statistics.median(v[1] for v in values):.3f} |")
PY
