#!/usr/bin/env bash
# Several schedule-sim processes (as several backend instances would be) book against one
# PostgreSQL database at once; then `schedule-sim verify-store` reads the database's final state
# and every process's history and checks I1, I2, I5, I6, I9, I12 and linearizability (I11) across
# processes. Exits non-zero on any failure.
#
#   Scripts/with-postgres.sh Scripts/multi-process-postgres.sh
#
# Environment: SLOTSCHEDULER_DATABASE_URL (set by with-postgres.sh; required), PROCESSES (3),
# THREADS per process (4), SCENARIO (Scenarios/rush-hour.json), OPERATIONS (the scenario's own).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh

: "${SLOTSCHEDULER_DATABASE_URL:?run me under Scripts/with-postgres.sh, or set SLOTSCHEDULER_DATABASE_URL}"
PROCESSES=${PROCESSES:-3}
THREADS=${THREADS:-4}
SCENARIO=${SCENARIO:-Scenarios/rush-hour.json}
PER_PROCESS_TIMEOUT=${PER_PROCESS_TIMEOUT:-300}

# --store postgres://… needs the PostgreSQL store: the Postgres trait (Package.swift).
BIN=$(schedule_sim_binary --traits Postgres)

# A fresh schema per run, so earlier runs' bookings never count.
SCHEMA="mp_$(date +%s)_$$"
case "$SLOTSCHEDULER_DATABASE_URL" in
    *\?*) URL="$SLOTSCHEDULER_DATABASE_URL&schema=$SCHEMA" ;;
    *) URL="$SLOTSCHEDULER_DATABASE_URL?schema=$SCHEMA" ;;
esac
WORK=$(mktemp -d /tmp/multi-process-postgres.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

extra=()
[[ -n "${OPERATIONS:-}" ]] && extra+=(--operations "$OPERATIONS")

echo "=== $PROCESSES processes x $THREADS threads, $SCENARIO, schema $SCHEMA"
pids=()
histories=()
for ((i = 0; i < PROCESSES; i++)); do
    histories+=(--history "$WORK/history-$i.jsonl")
    timeout "$PER_PROCESS_TIMEOUT" "$BIN" run "$SCENARIO" --store "$URL" --threads "$THREADS" \
        --process-index "$i" --process-count "$PROCESSES" --history "$WORK/history-$i.jsonl" "${extra[@]}" \
        >"$WORK/process-$i.log" 2>&1 &
    pids+=($!)
done

failed=0
for ((i = 0; i < PROCESSES; i++)); do
    if wait "${pids[$i]}"; then
        cat "$WORK/process-$i.log"
    else
        status=$?
        echo "process $i FAILED (exit $status):" >&2
        cat "$WORK/process-$i.log" >&2
        failed=1
    fi
done
if [[ $failed -ne 0 ]]; then
    echo "some processes failed" >&2
    exit 1
fi

echo "=== verify-store"
"$BIN" verify-store --store "$URL" --scenario "$SCENARIO" "${histories[@]}" "${extra[@]}" \
    --report "$WORK/report.json"
echo "multi-process run passed"
