#!/usr/bin/env bash
# The store's reserve path (reserve.sql: BEGIN; slot_reserve; COMMIT) on the schema up to
# migration OLD (default: the one before the last) against the schema with every migration, side
# by side against one throwaway server, alternating in slices so a shared machine's load hits
# both alike. Shows what the last migration's slot_reserve costs.
#
#   Scripts/pg-bench/compare-migrations.sh                 # starts its own server
#   OLD=2 BENCH_SECONDS=40 BENCH_ROUNDS=4 CLIENTS="1 8" Scripts/pg-bench/compare-migrations.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [[ -z "${SLOTSCHEDULER_DATABASE_URL:-}" ]]; then
    exec "$ROOT/Scripts/with-postgres.sh" "$0" "$@"
fi
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$SLOTSCHEDULER_DATABASE_URL")
PGBENCH=pgbench
[[ -n "${SLOTSCHEDULER_PG_BINDIR:-}" && -x "$SLOTSCHEDULER_PG_BINDIR/pgbench" ]] && PGBENCH="$SLOTSCHEDULER_PG_BINDIR/pgbench"
MIGRATIONS="$ROOT/Sources/SlotSchedulerPostgres/Migrations"
versions=$(ls "$MIGRATIONS" | sed -n 's|^v\([0-9][0-9]*\)\.sql$|\1|p' | sort -n)
LAST=$(echo "$versions" | tail -1)
OLD=${OLD:-$((LAST - 1))}
ROUNDS=${BENCH_ROUNDS:-4}
SLICE=$(( (${BENCH_SECONDS:-40} + ROUNDS - 1) / ROUNDS ))

# Schema `name` with migrations 1...`upto`, as the store applies them (see run.sh).
install() { # name upto
    local sql="${TMPDIR:-/tmp}/slot-schema-$1.sql"
    : >"$sql"
    for v in $versions; do
        [[ $v -le $2 ]] || continue
        { cat "$MIGRATIONS/v$v.sql"; echo; } >>"$sql"
    done
    "${PSQL[@]}" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $1 CASCADE; CREATE SCHEMA $1;"
    PGOPTIONS="-c search_path=$1" "${PSQL[@]}" -f "$sql"
    PGOPTIONS="-c search_path=$1" "${PSQL[@]}" -f "$HERE/deployment.sql"
}
install bench_old "$OLD"
install bench_new "$LAST"

run() { # schema clients seconds
    PGOPTIONS="-c search_path=$1" "$PGBENCH" -n -M prepared -c "$2" -j "$2" -T "$3" \
        -f "$HERE/reserve.sql" "$SLOTSCHEDULER_DATABASE_URL" 2>/dev/null \
        | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}
mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { print s / NR }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "reserve.sql (BEGIN; slot_reserve; COMMIT), migrations 1-$OLD vs 1-$LAST, $ROUNDS x ($SLICE s each) per client count"
printf '%-8s %12s %12s %8s   %s\n' clients "v$OLD tps" "v$LAST tps" ratio "per-slice v$LAST/v$OLD"
for clients in ${CLIENTS:-1 8}; do
    olds=() news=() ratios=""
    for i in $(seq 1 "$ROUNDS"); do
        # Alternate which goes first, so neither always gets the quieter half.
        if (( i % 2 )); then o=$(run bench_old "$clients" "$SLICE"); n=$(run bench_new "$clients" "$SLICE")
        else n=$(run bench_new "$clients" "$SLICE"); o=$(run bench_old "$clients" "$SLICE"); fi
        olds+=("$o") news+=("$n") ratios+=" $(ratio "$n" "$o")"
    done
    o=$(mean "${olds[@]}") n=$(mean "${news[@]}")
    printf '%-8s %12.0f %12.0f %8s  %s\n' "$clients" "$o" "$n" "$(ratio "$n" "$o")" "$ratios"
done
