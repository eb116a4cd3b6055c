#!/usr/bin/env bash
# Durable reservations per second: the journal store (SlotSchedulerJournal, group commit and one
# sync per booking) against PostgreSQL's raw durable INSERT (Scripts/pg-bench/raw-insert.sql),
# with 1 and 8 concurrent callers, in one run, alternating in slices so that load on a shared
# machine hits both alike.
#
#   Scripts/journal-bench/run.sh                 # starts a throwaway server via Scripts/with-postgres.sh
#   BENCH_SECONDS=20 BENCH_ROUNDS=4 Scripts/journal-bench/run.sh
#
# The journal writes to a directory under .build (the same disk as the server's, which
# with-postgres.sh puts under /tmp: check with `df`).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [[ -z "${SLOTSCHEDULER_DATABASE_URL:-}" ]]; then
    exec "$ROOT/Scripts/with-postgres.sh" "$0" "$@"
fi
SECONDS_PER_RUN=${BENCH_SECONDS:-12}
ROUNDS=${BENCH_ROUNDS:-3}
SLICE=$(( (SECONDS_PER_RUN + ROUNDS - 1) / ROUNDS ))
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$SLOTSCHEDULER_DATABASE_URL")
PGBENCH=pgbench
[[ -n "${SLOTSCHEDULER_PG_BINDIR:-}" && -x "$SLOTSCHEDULER_PG_BINDIR/pgbench" ]] && PGBENCH="$SLOTSCHEDULER_PG_BINDIR/pgbench"

(cd "$ROOT" && swift build -c release --product journal-bench >&2)
BENCH="$ROOT/.build/release/journal-bench"
WORK="$ROOT/.build/journal-bench-data"

"${PSQL[@]}" -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS jbench CASCADE; CREATE SCHEMA jbench;
    CREATE TABLE jbench.raw_bookings (socket_idx integer, day integer, hour integer, user_id bigint,
                                      PRIMARY KEY (socket_idx, day, hour));"

pg() { # clients seconds
    PGOPTIONS="-c search_path=jbench" "$PGBENCH" -n -M prepared -c "$1" -j "$1" -T "$2" \
        -f "$ROOT/Scripts/pg-bench/raw-insert.sql" "$SLOTSCHEDULER_DATABASE_URL" 2>/dev/null \
        | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}
journal() { # callers seconds mode
    rm -rf "$WORK" && mkdir -p "$WORK"
    local line
    line=$("$BENCH" "$WORK" "$1" "$2" "$3") || { echo "journal-bench failed: $line" >&2; exit 70; }
    echo "  $line" >&2
    sed -n 's/.*: \([0-9]*\) reservations\/s.*/\1/p' <<<"$line"
}
mean() { printf '%s\n' "$@" | awk '{ s += $1 } END { printf "%.0f", s / NR }'; }

echo "server $("${PSQL[@]}" -At -c "SHOW server_version"), synchronous_commit=$("${PSQL[@]}" -At -c "SHOW synchronous_commit"), $ROUNDS x $SLICE s slices of each"
printf '%-8s %12s %16s %16s %12s %14s\n' callers "PG raw tps" "journal group/s" "journal 1-sync/s" "group / PG" "group / 1-sync"
for callers in 1 8; do
    pgs=() groups=() singles=()
    for _ in $(seq 1 "$ROUNDS"); do
        pgs+=("$(pg "$callers" "$SLICE")")
        groups+=("$(journal "$callers" "$SLICE" group)")
        singles+=("$(journal "$callers" "$SLICE" single)")
    done
    p=$(mean "${pgs[@]}") g=$(mean "${groups[@]}") s=$(mean "${singles[@]}")
    printf '%-8s %12s %16s %16s %12s %14s\n' "$callers" "$p" "$g" "$s" \
        "$(awk -v a="$g" -v b="$p" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
        "$(awk -v a="$g" -v b="$s" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
done
rm -rf "$WORK"
