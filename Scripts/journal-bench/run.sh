#!/usr/bin/env bash
# Durable reservations per second: the journal store (SlotSchedulerJournal, group commit and one
# sync per booking) against PostgreSQL's raw durable INSERT (Scripts/pg-bench/raw-insert.sql),
# with 1 and 8 concurrent callers, in one run, alternating in slices so that load on a shared
# machine hits both alike.
#
#   Scripts/journal-bench/run.sh                 # starts a throwaway server via Scripts/with-postgres.sh
#   BENCH_SECONDS=20 BENCH_ROUNDS=4 Scripts/journal-bench/run.sh
#
# Fair both ways: the journal writes to a directory under .build, on the same disk as the
# server's data (with-postgres.sh puts it under /tmp: check with `df`); the server keeps its
# durable defaults (fsync=on, synchronous_commit=on, printed below) and pgbench connects without
# TLS; both get the same number of callers (pgbench -c N -j N), one warm-up slice each first,
# and the same figure: the median of the rounds (every round's ratio is printed too).
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
    PGSSLMODE=disable PGOPTIONS="-c search_path=jbench" "$PGBENCH" -n -M prepared -c "$1" -j "$1" -T "$2" \
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
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

setting() { "${PSQL[@]}" -At -c "SHOW $1"; }
echo "server $(setting server_version), fsync=$(setting fsync), synchronous_commit=$(setting synchronous_commit), wal_sync_method=$(setting wal_sync_method), $ROUNDS x $SLICE s slices of each, medians"
echo "  warm-up: PG $(pg 8 1) tps" >&2
journal 8 1 group >/dev/null
printf '%-8s %12s %16s %16s %12s %14s   %s\n' callers "PG raw tps" "journal group/s" "journal 1-sync/s" "group / PG" "group / 1-sync" "group / PG by round"
for callers in 1 8; do
    pgs=() groups=() singles=() rounds=""
    for _ in $(seq 1 "$ROUNDS"); do
        pgs+=("$(pg "$callers" "$SLICE")")
        groups+=("$(journal "$callers" "$SLICE" group)")
        singles+=("$(journal "$callers" "$SLICE" single)")
        rounds+=" $(ratio "${groups[-1]}" "${pgs[-1]}")"
    done
    p=$(median "${pgs[@]}") g=$(median "${groups[@]}") s=$(median "${singles[@]}")
    printf '%-8s %12s %16s %16s %12s %14s  %s\n' "$callers" "$p" "$g" "$s" "$(ratio "$g" "$p")" "$(ratio "$g" "$s")" "$rounds"
done
rm -rf "$WORK"
