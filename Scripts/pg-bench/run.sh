#!/usr/bin/env bash
# Raw INSERT ... ON CONFLICT DO NOTHING vs the store's full reserve path (slot_reserve in its
# explicit transaction), side by side against one throwaway server, with 1 and 8 clients; also the
# one-statement call the store made before it waited for its own COMMIT, to show that cost, and
# the store's path since migration 15: one CALL of slot_reserve_committed, which commits itself.
#
#   Scripts/pg-bench/run.sh            # starts its own server via Scripts/with-postgres.sh
#   BENCH_SECONDS=30 Scripts/pg-bench/run.sh      # seconds per script and client count
#   BENCH_ROUNDS=4                                # alternating raw/reserve slices (default 4)
#
# The schema is every migration of Sources/SlotSchedulerPostgres/Migrations/vN.sql, in order, so
# the benchmark runs exactly the SQL the store installs.
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

# The store's schema in schema `bench`: every migration, in order, as the store applies them.
MIGRATIONS="$ROOT/Sources/SlotSchedulerPostgres/Migrations"
SCHEMA_SQL="${TMPDIR:-/tmp}/slot-schema.sql"
: >"$SCHEMA_SQL"
versions=$(ls "$MIGRATIONS" | sed -n 's|^v\([0-9][0-9]*\)\.sql$|\1|p' | sort -n)
[[ -n "$versions" ]] || { echo "no migrations in $MIGRATIONS" >&2; exit 70; }
for v in $versions; do
    { cat "$MIGRATIONS/v$v.sql"; echo; } >>"$SCHEMA_SQL"
done
"${PSQL[@]}" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS bench CASCADE; CREATE SCHEMA bench;"
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -f "$SCHEMA_SQL"
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -f "$HERE/deployment.sql"
# The raw table: the same key, no rules.
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -c "
    CREATE TABLE raw_bookings (socket_idx integer, day integer, hour integer, user_id bigint,
                               PRIMARY KEY (socket_idx, day, hour));"

run() { # script clients seconds [protocol]
    PGOPTIONS="-c search_path=bench" "$PGBENCH" -n -M "${4:-prepared}" -c "$2" -j "$2" -T "$3" \
        -f "$HERE/$1" "$SLOTSCHEDULER_DATABASE_URL" 2>/dev/null \
        | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}

# On a shared machine the load changes within seconds, so raw and reserve alternate in ROUNDS
# slices of BENCH_SECONDS / ROUNDS each; the tps columns are the means over the slices, and the
# per-slice ratios show how noisy the run was.
ROUNDS=${BENCH_ROUNDS:-4}
SLICE=$(( (SECONDS_PER_RUN + ROUNDS - 1) / ROUNDS ))
echo "server $("${PSQL[@]}" -At -c "SHOW server_version"), synchronous_commit=$("${PSQL[@]}" -At -c "SHOW synchronous_commit"), pgbench -M prepared (the CALL: -M extended, as PostgresNIO sends it), $ROUNDS x ($SLICE s each of raw, reserve, one-statement, call) per client count"
echo "reserve: BEGIN; slot_reserve; COMMIT (before migration 15); one-statement: slot_reserve alone; call: the store's path since migration 15"
printf '%-8s %10s %12s %14s %10s %8s %14s %10s   %s\n' clients "raw tps" "reserve tps" "one-stmt tps" "call tps" ratio "one-stmt ratio" "call ratio" "per-slice reserve/raw"
mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { print s / NR }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
for clients in 1 8; do
    raws=() reserves=() singles=() calls=() ratios=""
    for _ in $(seq 1 "$ROUNDS"); do
        raw=$(run raw-insert.sql "$clients" "$SLICE")
        reserve=$(run reserve.sql "$clients" "$SLICE")
        single=$(run reserve-one-statement.sql "$clients" "$SLICE")
        call=$(run reserve-call.sql "$clients" "$SLICE" extended)
        raws+=("$raw") reserves+=("$reserve") singles+=("$single") calls+=("$call")
        ratios+=" $(ratio "$reserve" "$raw")"
    done
    raw=$(mean "${raws[@]}") reserve=$(mean "${reserves[@]}") single=$(mean "${singles[@]}") call=$(mean "${calls[@]}")
    printf '%-8s %10.0f %12.0f %14.0f %10.0f %8s %14s %10s  %s\n' "$clients" "$raw" "$reserve" "$single" "$call" \
        "$(ratio "$reserve" "$raw")" "$(ratio "$single" "$raw")" "$(ratio "$call" "$raw")" "$ratios"
done
PGOPTIONS="-c search_path=bench" "${PSQL[@]}" -At -c "
    SELECT 'bookings ' || count(*) FROM bookings UNION ALL SELECT 'raw rows ' || count(*) FROM raw_bookings
    UNION ALL SELECT 'double-booked slots ' || count(*) FROM (SELECT 1 FROM bookings WHERE status = 'active'
        GROUP BY socket_idx, day, hour HAVING count(*) > 1) d;"
