#!/usr/bin/env bash
# Raw INSERT ... ON CONFLICT DO NOTHING vs the store's full reserve path (slot_reserve), side by
# side against one throwaway server, with 1 and 8 clients.
#
#   Scripts/pg-bench/run.sh            # starts its own server via Scripts/with-postgres.sh
#   BENCH_SECONDS=30 Scripts/pg-bench/run.sh      # seconds per script and client count
#   BENCH_ROUNDS=4                                # alternating raw/reserve slices (default 4)
#
# The schema and slot_reserve are extracted from Sources/SlotSchedulerPostgres/Schema.swift (all
# migrations, in order), so the benchmark runs exactly the SQL the store installs.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [[ -z "${SLOTSCHEDULER_DATABASE_URL:-}" ]]; then
    exec "$ROOT/Scripts/with-postgres.sh" "$0" "$@"
fi
SECONDS_PER_RUN=${BENCH_SECONDS:-15}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$SLOTSCHEDULER_DATABASE_URL")
PGBENCH=pgbench
[[ -n "${SLOTSCHEDULER_PG_BINDIR:-}" && -x "$SLOTSCHEDULER_PG_BINDIR/pgbench" ]] && PGBENCH="$SLOTSCHEDULER_PG_BINDIR/pgbench"

# The store's schema in schema `bench`: every migration in Schema.swift, in order, as the store
# applies them.
SCHEMA_SWIFT="$ROOT/Sources/SlotSchedulerPostgres/Schema.swift"
SCHEMA_SQL="${TMPDIR:-/tmp}/slot-schema.sql"
: >"$SCHEMA_SQL"
versions=$(sed -n 's|^ *// BEGIN SQL v\([0-9][0-9]*\)$|\1|p' "$SCHEMA_SWIFT" | sort -n)
[[ -n "$versions" ]] || { echo "no BEGIN SQL markers in $SCHEMA_SWIFT" >&2; exit 70; }
for v in $versions; do
    sed -n "/\/\/ BEGIN SQL v$v\$/,/\/\/ END SQL v$v\$/p" "$SCHEMA_SWIFT" \
        | sed -e '1,2d' -e '$d' | sed -e '$d' -e 's/^        //' >>"$SCHEMA_SQL"
done
"${PSQL[@]}" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS bench CASCADE; CREATE SCHEMA bench;"
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -f "$SCHEMA_SQL"
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -c \
    "INSERT INTO deployment (catalog_json, policy_json, policy_version) VALUES ('[]', '{}', 1);"
# The raw table: the same key, no rules.
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -c "
    CREATE TABLE raw_bookings (socket_idx integer, day integer, hour integer, user_id bigint,
                               PRIMARY KEY (socket_idx, day, hour));"

run() { # script clients seconds
    PGOPTIONS="-c search_path=bench" "$PGBENCH" -n -M prepared -c "$2" -j "$2" -T "$3" \
        -f "$HERE/$1" "$SLOTSCHEDULER_DATABASE_URL" 2>/dev/null \
        | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}

# On a shared machine the load changes within seconds, so raw and reserve alternate in ROUNDS
# slices of BENCH_SECONDS / ROUNDS each; the tps columns are the means over the slices, and the
# per-slice ratios show how noisy the run was.
ROUNDS=${BENCH_ROUNDS:-4}
SLICE=$(( (SECONDS_PER_RUN + ROUNDS - 1) / ROUNDS ))
echo "server $("${PSQL[@]}" -At -c "SHOW server_version"), synchronous_commit=$("${PSQL[@]}" -At -c "SHOW synchronous_commit"), pgbench -M prepared, $ROUNDS x ($SLICE s raw, $SLICE s reserve) per client count"
printf '%-8s %14s %14s %8s   %s\n' clients "raw tps" "reserve tps" ratio "per-slice ratios"
for clients in 1 8; do
    raws=() reserves=() ratios=""
    for _ in $(seq 1 "$ROUNDS"); do
        raw=$(run raw-insert.sql "$clients" "$SLICE")
        reserve=$(run reserve.sql "$clients" "$SLICE")
        raws+=("$raw") reserves+=("$reserve")
        ratios+=" $(awk -v a="$reserve" -v b="$raw" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    done
    raw=$(printf '%s\n' "${raws[@]}" | awk '{ s += $1 } END { print s / NR }')
    reserve=$(printf '%s\n' "${reserves[@]}" | awk '{ s += $1 } END { print s / NR }')
    printf '%-8s %14.0f %14.0f %8.2f  %s\n' "$clients" "$raw" "$reserve" \
        "$(awk -v a="$reserve" -v b="$raw" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$ratios"
done
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -At -c "
    SELECT 'bookings ' || count(*) FROM bookings UNION ALL SELECT 'raw rows ' || count(*) FROM raw_bookings
    UNION ALL SELECT 'double-booked slots ' || count(*) FROM (SELECT 1 FROM bookings WHERE status = 'active'
        GROUP BY socket_idx, day, hour HAVING count(*) > 1) d;"
