#!/usr/bin/env bash
# Failover without loss: a primary with a synchronous standby (streaming replication); while
# schedule-sim processes book through a two-host URL (primary,standby), the primary is killed
# (`pg_ctl stop -m immediate`) and the standby promoted. The store finds the new primary (the host
# that is not in recovery, as libpq's target_session_attrs=read-write does) and carries on.
# Afterwards `schedule-sim verify-store`, reading the new primary, checks that every booking
# acknowledged before, during and after the failover is there with its user and slot, nothing is
# there that no client attempted, and I1/I2 hold (errors during the switch are indeterminate).
# Beside them, the example service (BOOKING_SERVICE, or the debug build's, when there is one) on
# the same two hosts, schema `service`: a keyed reservation and a keyed cancel answered before the
# failover are answered again, as replays, by the new primary after it (Examples/BookingService/
# Scripts/failover_key_check.py): its request ids and its Idempotency-Key pool follow the primary.
#
#   Scripts/pg-failover.sh
#
# Environment: PROCESSES (2), THREADS (4), OPERATIONS (the scenario's own), SCENARIO (Scenarios/rush-hour.json),
# SYNC (on; or remote_apply), RUN_TIMEOUT (300).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh
PROCESSES=${PROCESSES:-2}
THREADS=${THREADS:-4}
OPERATIONS=${OPERATIONS:-}
SCENARIO=${SCENARIO:-Scenarios/rush-hour.json}
SYNC=${SYNC:-on}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}

log() { echo "pg-failover: $*" >&2; }
source Scripts/pg-lib.sh
BINDIR=$(find_bindir) || true
[[ -x "$BINDIR/pg_basebackup" ]] || { Scripts/with-postgres.sh true; BINDIR=$(find_bindir); }
set_runas

BIN=$(schedule_sim_binary --traits Postgres)  # the store needs the trait

WORK=$(mktemp -d /tmp/pg-failover.XXXXXX)
chmod 755 "$WORK"
[[ -n "$RUNAS" ]] && chown postgres: "$WORK"
P1=$(free_port)
P2=$(free_port)
while [[ "$P2" == "$P1" ]]; do P2=$(free_port); done
cleanup() {
    local status=$?
    [[ ${#pids[@]} -eq 0 ]] || kill "${pids[@]}" 2>/dev/null || true
    [[ -z "$SERVICE_PID" ]] || kill -9 "$SERVICE_PID" 2>/dev/null || true
    for d in primary standby; do
        [[ -f "$WORK/$d/postmaster.pid" ]] && $RUNAS "$BINDIR/pg_ctl" -D "$WORK/$d" -m immediate -w stop >/dev/null 2>&1
    done
    if [[ $status -ne 0 ]]; then
        for d in primary standby; do [[ -f "$WORK/$d.log" ]] && { log "$d log:"; tail -n 15 "$WORK/$d.log" >&2; }; done
    fi
    rm -rf "$WORK"
    exit "$status"
}
pids=()
SERVICE_PID=
trap cleanup EXIT
trap 'exit 130' INT TERM

COMMON="-c listen_addresses=127.0.0.1 -k $WORK -c max_connections=200 -c wal_level=replica -c max_wal_senders=5 -c hot_standby=on"
$RUNAS "$BINDIR/initdb" -D "$WORK/primary" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
$RUNAS "$BINDIR/pg_ctl" -D "$WORK/primary" -l "$WORK/primary.log" -w -t 60 start \
    -o "$COMMON -p $P1 -c synchronous_commit=$SYNC" >/dev/null
timeout 60 psql -X -q -h 127.0.0.1 -p "$P1" -U postgres -d postgres -c "CREATE DATABASE slotscheduler"
# --checkpoint=fast: the default spread checkpoint paces its writes over most of
# checkpoint_timeout, and the base backup waited about 90 s for it on a database this small.
$RUNAS "$BINDIR/pg_basebackup" -D "$WORK/standby" -R -X stream --checkpoint=fast \
    -d "host=127.0.0.1 port=$P1 user=postgres application_name=standby1"
$RUNAS "$BINDIR/pg_ctl" -D "$WORK/standby" -l "$WORK/standby.log" -w -t 60 start -o "$COMMON -p $P2" >/dev/null
# Synchronous only now: with no standby yet, every commit would wait for one.
psql -X -q -h 127.0.0.1 -p "$P1" -U postgres -d postgres \
    -c "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" -c "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 100); do
    state=$(psql -X -At -h 127.0.0.1 -p "$P1" -U postgres -d postgres \
        -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'" || true)
    [[ "$state" == "sync" ]] && break
    sleep 0.2
done
[[ "$state" == "sync" ]] || { log "the standby never became synchronous"; exit 1; }
log "primary :$P1, synchronous standby :$P2 (synchronous_commit=$SYNC)"

extra=()
[[ -n "$OPERATIONS" ]] && extra+=(--operations "$OPERATIONS")
URL="postgres://postgres@127.0.0.1:$P1,127.0.0.1:$P2/slotscheduler?schema=failover&connect_timeout=3"
start_sim_processes "$URL"

# The example service on the same two hosts, its keyed requests answered before the failover.
SERVICE=${BOOKING_SERVICE:-.build/debug/BookingService}
KEYS=(python3 Examples/BookingService/Scripts/failover_key_check.py --secret "$WORK/secret" --state "$WORK/keys.json")
if [[ -x "$SERVICE" ]]; then
    head -c 48 /dev/urandom | base64 >"$WORK/secret"
    "$SERVICE" --scenario Examples/BookingService/Scenarios/service.json --port 0 --auth "hs256:$WORK/secret" \
        --address-limit off --user-limit off \
        --store "postgres://postgres@127.0.0.1:$P1,127.0.0.1:$P2/slotscheduler?schema=service&connect_timeout=3" \
        >"$WORK/service.log" 2>&1 &
    SERVICE_PID=$!
    disown "$SERVICE_PID"  # killed in cleanup, without a job-control notice
    address=
    for _ in $(seq 1 300); do
        address=$(sed -n 's/^listening on \(.*\)$/\1/p' "$WORK/service.log" | head -1)
        [[ -n "$address" ]] && break
        sleep 0.1
    done
    [[ -n "$address" ]] || { log "the example service did not listen:"; tail -n 20 "$WORK/service.log" >&2; exit 1; }
    KEYS+=(--url "http://$address")
    timeout 120 "${KEYS[@]}" --phase before
else
    log "no example service at $SERVICE: its keyed requests are not checked across the failover"
fi

# Fail over once every process has made a quarter of its operations (its history holds an invoke
# and a completion line per operation), so three quarters, bookings among them, come after it.
# A count of bookings was no such measure: a whole rush-hour run makes about 300, and the run
# could end before a wait for 200 did.
operations=${OPERATIONS:-$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("workload", {}).get("operations", 0))' "$SCENARIO")}
lines=$((operations / PROCESSES / 2))
((lines > 0)) || { log "$SCENARIO has no workload to fail over in; give OPERATIONS"; exit 1; }
for ((w = 0; w < 600; w++)); do
    processes_past "$lines" && break
    for ((i = 0; i < PROCESSES; i++)); do
        kill -0 "${pids[$i]}" 2>/dev/null || {
            log "process $i ended before the failover (see below); give it more OPERATIONS"
            tail -n 12 "$WORK/process-$i.log" >&2
            exit 1
        }
    done
    sleep 0.1
done
((w < 600)) || log "a quarter of the operations not reached within 60 s: failing over now"
before=$(psql -X -At -h 127.0.0.1 -p "$P1" -U postgres -d slotscheduler -c "SELECT count(*) FROM failover.bookings")
$RUNAS "$BINDIR/pg_ctl" -D "$WORK/primary" -m immediate -w stop >/dev/null
$RUNAS "$BINDIR/pg_ctl" -D "$WORK/standby" -w -t 60 promote >/dev/null
log "primary killed with $before bookings; standby promoted"

failed=0
for ((i = 0; i < PROCESSES; i++)); do
    wait "${pids[$i]}" || { log "process $i FAILED"; failed=1; }
    tail -n 12 "$WORK/process-$i.log"
done
[[ $failed -eq 0 ]] || exit 1
after=$(psql -X -At -h 127.0.0.1 -p "$P2" -U postgres -d slotscheduler -c "SELECT count(*) FROM failover.bookings")
log "the new primary holds $after bookings"
[[ "$after" -gt "$before" ]] || { log "no booking was made after the failover"; exit 1; }
if [[ -n "$SERVICE_PID" ]]; then
    timeout 120 "${KEYS[@]}" --phase after || { tail -n 20 "$WORK/service.log" >&2; exit 1; }
fi

"$BIN" verify-store --store "$URL" --scenario "$SCENARIO" "${extra[@]}" "${histories[@]}"
echo "failover run passed"
