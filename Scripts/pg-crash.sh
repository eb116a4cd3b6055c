#!/usr/bin/env bash
# Crash test of the PostgreSQL store: several schedule-sim processes book against one database
# while the server is crash-stopped (`pg_ctl restart -m immediate`) several times and one backend
# is killed with SIGKILL (what the OOM killer does; the server then resets every backend).
# Afterwards `schedule-sim verify-store` checks, from every process's history and the database:
# every acknowledged booking is present with its user and slot, nothing is present that no client
# attempted, no booking id was handed out twice, I1/I2 hold; operations that ended in an error
# count as indeterminate (either outcome allowed) and are reported with how they resolved.
#
#   Scripts/with-postgres.sh Scripts/pg-crash.sh
#
# Environment: SLOTSCHEDULER_DATABASE_URL and SLOTSCHEDULER_PG_RESTART_CMD (set by
# with-postgres.sh), SEED (1: the fault schedule), PROCESSES (3), THREADS (4),
# SCENARIO (Scenarios/rush-hour.json), OPERATIONS (the scenario's own), RESTARTS (3), RUN_TIMEOUT (300),
# COMMIT_DELAY_US (20000: the server's commit_delay, which widens the commit window).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh

: "${SLOTSCHEDULER_DATABASE_URL:?run me under Scripts/with-postgres.sh}"
: "${SLOTSCHEDULER_PG_RESTART_CMD:?run me under Scripts/with-postgres.sh}"
SEED=${SEED:-1}
PROCESSES=${PROCESSES:-3}
THREADS=${THREADS:-4}
SCENARIO=${SCENARIO:-Scenarios/rush-hour.json}
OPERATIONS=${OPERATIONS:-}
RESTARTS=${RESTARTS:-3}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
RANDOM=$SEED

BIN=$(schedule_sim_binary --traits Postgres)  # the store needs the trait

SCHEMA="crash_${SEED}_$$"
case "$SLOTSCHEDULER_DATABASE_URL" in
    *\?*) URL="$SLOTSCHEDULER_DATABASE_URL&schema=$SCHEMA" ;;
    *) URL="$SLOTSCHEDULER_DATABASE_URL?schema=$SCHEMA" ;;
esac
WORK=$(mktemp -d /tmp/pg-crash.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

psql_at() { timeout 30 psql -X -At -d "$SLOTSCHEDULER_DATABASE_URL" -c "$1" 2>/dev/null || true; }

# Widen the commit window: each commit waits COMMIT_DELAY_US before its WAL flush, so a crash
# lands while commits are in flight, the moment a store that acknowledges early gets caught.
COMMIT_DELAY_US=${COMMIT_DELAY_US:-20000}
psql_at "ALTER SYSTEM SET commit_delay = $COMMIT_DELAY_US" >/dev/null
psql_at "ALTER SYSTEM SET commit_siblings = 0" >/dev/null
psql_at "SELECT pg_reload_conf()" >/dev/null

extra=()
[[ -n "$OPERATIONS" ]] && extra+=(--operations "$OPERATIONS")
echo "=== seed $SEED: $PROCESSES processes x $THREADS threads, $SCENARIO ${OPERATIONS:+($OPERATIONS operations)}, schema $SCHEMA"
source Scripts/pg-lib.sh
start_sim_processes "$URL"

running() { for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && return 0; done; return 1; }

# The fault schedule: RESTARTS crash-restarts and one backend SIGKILL, at seeded moments while the
# processes run. The first waits (at most 60 s) until every process is booking, so none lands
# while a process opens its store (a process that cannot open it exits 69): with a fixed delay
# alone, a machine slow to start the processes could fail the run, not the store.
for ((w = 0; w < 600; w++)); do
    processes_booking && break
    running || break
    sleep 0.1
done
faults=()
for ((f = 0; f < RESTARTS; f++)); do faults+=(restart); done
faults+=(kill-backend)
for ((f = ${#faults[@]} - 1; f > 0; f--)); do
    j=$((RANDOM % (f + 1)))
    tmp=${faults[$f]} faults[$f]=${faults[$j]} faults[$j]=$tmp
done
done_faults=()
for fault in "${faults[@]}"; do
    sleep "0.$((2 + RANDOM % 8))"
    running || break
    case "$fault" in
        restart)
            eval "timeout 90 $SLOTSCHEDULER_PG_RESTART_CMD" && done_faults+=(restart) ;;
        kill-backend)
            pid=$(psql_at "SELECT pid FROM pg_stat_activity WHERE datname = current_database()
                           AND pid <> pg_backend_pid() AND backend_type = 'client backend' ORDER BY pid LIMIT 1")
            if [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null; then done_faults+=("kill-9 $pid"); fi ;;
    esac
    sleep 1
done
echo "faults made: ${done_faults[*]:-none}"

failed=0
for ((i = 0; i < PROCESSES; i++)); do
    if ! wait "${pids[$i]}"; then
        echo "process $i FAILED:" >&2
        failed=1
    fi
    tail -n 20 "$WORK/process-$i.log"
done
[[ $failed -eq 0 ]] || { echo "a process failed" >&2; exit 1; }
[[ ${#done_faults[@]} -gt 0 ]] || { echo "no fault landed while the processes ran: raise OPERATIONS" >&2; exit 1; }

echo "=== verify-store"
"$BIN" verify-store --store "$URL" --scenario "$SCENARIO" "${extra[@]}" "${histories[@]}" \
    --report "$WORK/report.json"
echo "crash run (seed $SEED) passed"
