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

# The schema as a deploy step first (`schedule-sim db`): everything pending (exit 1), applied
# once, then up to date; a second migrate applies nothing; a role name that is not an identifier
# is a usage error (64), before anything reaches the database.
echo "=== schedule-sim db status / migrate / grant, schema $SCHEMA"
status=0; "$BIN" db status --store "$URL" >"$WORK/status-before.txt" || status=$?
[[ $status -eq 1 ]] && grep -q '^pending: v1,' "$WORK/status-before.txt" \
    || { echo "db status on a fresh schema: exit $status" >&2; cat "$WORK/status-before.txt" >&2; exit 1; }
"$BIN" db migrate --store "$URL" | tee "$WORK/migrate.txt"
grep -q '^applied v1, ' "$WORK/migrate.txt" || { echo "db migrate applied nothing" >&2; exit 1; }
"$BIN" db status --store "$URL" | tail -1 | grep -qx 'up to date' || { echo "db status after migrate" >&2; exit 1; }
"$BIN" db migrate --store "$URL" | grep -qx 'nothing to apply: up to date' || { echo "second db migrate" >&2; exit 1; }
status=0; "$BIN" db grant --store "$URL" --role 'no such; role' 2>/dev/null || status=$?
[[ $status -eq 64 ]] || { echo "db grant with a bad role name: exit $status, not 64" >&2; exit 1; }

# The store held to the reference model, call by call, on a schema of its own.
echo "=== schedule-sim conform"
"$BIN" conform --store "${URL/schema=$SCHEMA/schema=${SCHEMA}_conform}" --seed 4

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

# A catalog change on the deployment the processes booked: the first station's last socket
# retired and a station added. Refused with --refuse-if-booked when bookings are in the way,
# naming as many as the change then displaces; the first list applied again brings the socket
# back (revision 2).
echo "=== schedule-sim catalog apply"
python3 - "$SCENARIO" "$WORK/catalog.json" <<'PY'
import json, sys
stations = json.load(open(sys.argv[1]))["stations"]
stations[0]["sockets"] = stations[0]["sockets"][:-1]
stations.append({"id": "added-by-ci", "timeZone": stations[0]["timeZone"],
                 "sockets": [{"id": "1", "connector": "CCS", "powerKW": 150}]})
json.dump({"stations": stations}, open(sys.argv[2], "w"))
PY
start=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clock"]["start"])' "$SCENARIO")
status=0
"$BIN" catalog apply "$WORK/catalog.json" --store "$URL" --scenario "$SCENARIO" --at "$start" --refuse-if-booked \
    --history "$WORK/catalog-1.jsonl" >"$WORK/refused.txt" 2>&1 || status=$?
"$BIN" catalog apply "$WORK/catalog.json" --store "$URL" --scenario "$SCENARIO" --at "$start" \
    --history "$WORK/catalog-2.jsonl" | tee "$WORK/applied.txt"
displaced=$(sed -n 's/^displaced \([0-9]*\) bookings$/\1/p' "$WORK/applied.txt")
if ((displaced > 0)); then
    [[ $status -eq 1 ]] && grep -q "holding $displaced bookings" "$WORK/refused.txt" ||
        { echo "the refused change (exit $status) does not name the $displaced bookings:" >&2; cat "$WORK/refused.txt" >&2; exit 1; }
else
    [[ $status -eq 0 ]] || { echo "a change displacing nothing was refused" >&2; exit 1; }
fi
grep -qx 'catalog revision [12]' "$WORK/applied.txt" || { echo "no catalog revision printed" >&2; exit 1; }
# The runs' histories and the change's (its displacements, after their operations): verify-store
# holds the store to both.
for h in "$WORK"/catalog-*.jsonl; do histories+=(--history "$h"); done
"$BIN" verify-store --store "$URL" --scenario "$SCENARIO" "${histories[@]}" "${extra[@]}" \
    --report "$WORK/report-after-catalog.json" | tail -3
"$BIN" catalog apply "$SCENARIO" --store "$URL" --scenario "$SCENARIO" --at "$start" | grep -q '^sockets added: ' ||
    { echo "the first list applied again did not bring the socket back" >&2; exit 1; }
echo "multi-process run passed"
