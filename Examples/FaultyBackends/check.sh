#!/usr/bin/env bash
# Runs schedule-sim against each teaching backend (backend.py): the correct one must pass both
# levels of checks, and each faulty one must fail naming its invariant (the first four,
# stored-an-hour-late, cancel-anyones, lists-anyones, key-for-any-request and ride-ends-in-place
# under `--check safety`; under `--check rules`, those that break only the rules (ignores-notice,
# cancel-keeps-slot, checkout-without-checkin, ignores-access-code, ignores-cutoff,
# holds-without-cap), and
# reserve-ignores-holds, whose reservation of a held slot no order of the rules explains, and
# whose confirm then often double-books as well: exit 1 or 2). A race is a matter of timing, so a faulty backend
# gets up to eight runs to show its bug (each run of race.json takes about two seconds); the
# correct one gets one on each scenario, and any finding there is a false alarm. holds-without-cap
# runs on holds.json (six users, one live hold each), where it shows in about two runs of three.
#
#   Examples/FaultyBackends/check.sh [SCHEDULE_SIM]
#
# FINDING_PAGE=FILE keeps the HTML page (`run --html`) of the check-then-insert run that was
# caught, a double booking drawn on a timeline, for Scripts/html-report-check.sh to render.
set -euo pipefail
cd "$(dirname "$0")"
SIM=${1:-${SCHEDULE_SIM:-../../.build/debug/schedule-sim}}
WORK=$(mktemp -d -t faulty-backends.XXXXXX)
BACKEND=
trap '[ -n "$BACKEND" ] && kill "$BACKEND" 2>/dev/null; rm -rf "$WORK"' EXIT

# run FAULT [LEVEL [BACKEND_ARGUMENT...]]: starts the backend (FAULT none: the correct one), runs the
# simulator against it on $SCENARIO (race.json unless set) with `--check LEVEL` (safety by default),
# $CONCURRENCY in flight (64) and $OPERATIONS operations (the scenario's unless set);
# its output in $WORK/out, its exit status returned. The backend takes its policy (and its sockets'
# access codes) from the same scenario.
run() {
    local fault=$1 level=${2:-safety} args=("${@:3}") address= scenario=${SCENARIO:-race.json}
    [ "$fault" != none ] && args+=(--fault "$fault")
    python3 backend.py --port 0 --scenario "$scenario" "${args[@]}" >"$WORK/backend.log" 2>&1 &
    BACKEND=$!
    for _ in $(seq 1 300); do
        address=$(sed -n 's/^listening on //p' "$WORK/backend.log")
        [ -n "$address" ] && break
        sleep 0.1
    done
    local status=0
    "$SIM" run "$scenario" --target "http://$address" --adapter adapter.json --concurrency "${CONCURRENCY:-64}" \
        ${OPERATIONS:+--operations "$OPERATIONS"} --check "$level" --history "$WORK/$fault.jsonl" \
        --html "$WORK/$fault.html" >"$WORK/out" 2>&1 || status=$?
    kill "$BACKEND"
    wait "$BACKEND" 2>/dev/null || true
    BACKEND=
    return $status
}

# The adapters are what the schema says.
check-jsonschema --schemafile ../../Scenarios/adapter.schema.json adapter.json ../BookingService/schedule-sim-adapter.json

failed=0
for level in safety rules; do
    if run none "$level"; then
        echo "correct backend: passes --check $level ($(grep -c . "$WORK/none.jsonl") history lines)"
    else
        cat "$WORK/out"
        echo "FAIL: the correct backend was flagged under --check $level (a false alarm)"
        failed=1
    fi
done
# The correct backend on the other scenarios (SCENARIO:OPERATION, the operation counted): check-ins
# answered as made (today's and tomorrow's hours, a window opening a day early), a fifth of them
# with a wrong code, which it refuses, and check-outs that park the vehicle elsewhere; six users racing holds under a cap of one live hold each
# (holds.json, where holds-without-cap shows its bug), its refusals at the cap all explained.
for pair in sessions.json:checkIn holds.json:hold; do
    IFS=: read -r scenario operation <<<"$pair"
    if SCENARIO=$scenario run none rules; then
        echo "correct backend, $scenario: passes --check rules ($(grep -c "\"$operation\"" "$WORK/none.jsonl") $operation lines)"
    else
        cat "$WORK/out"
        echo "FAIL: the correct backend was flagged on $scenario under --check rules (a false alarm)"
        failed=1
    fi
done
# Reads answered 503 or not at all now and then are read again, not taken for the end of the run.
if run none rules --flaky-reads; then
    echo "correct backend, flaky reads: passes --check rules ($(grep -c . "$WORK/none.jsonl") history lines)"
else
    cat "$WORK/out"
    echo "FAIL: the correct backend with --flaky-reads failed under --check rules"
    failed=1
fi
# Hazards a correct backend's answers may meet on the way (a broken proxy, a hostile server), in
# short runs (16 operations, 4 in flight): answers to writes whose body never ends leave their
# outcomes unknown, each connection dropped past 16 MiB of body (the whole body was kept, until
# NIO's 4 GiB limit trapped), and the run passes with nothing made; a list naming each booking
# twice is refused when read back, exit 69 naming the booking (it was two live bookings of one
# slot: a double booking found in a correct backend).
for hazard in "--endless-writes:0:16 info (unknown)" "--list-twice:69:is listed twice"; do
    IFS=: read -r option expected said <<<"$hazard"
    status=0
    CONCURRENCY=4 OPERATIONS=16 run none safety "$option" || status=$?
    if [ "$status" = "$expected" ] && grep -q "$said" "$WORK/out"; then
        echo "correct backend $option: exit $status, $(grep -m1 "$said" "$WORK/out")"
    else
        cat "$WORK/out"
        echo "FAIL: the correct backend $option: exit $status, not $expected saying \"$said\""
        failed=1
    fi
done
# A target that does not speak HTTP is refused at the first read, exit 69, saying how it failed
# (where every such run once said only "does not answer", a closed port after 54 s): a closed
# port, a server that closes each connection unanswered, and one that answers a line of text.
# One that answers status 000 (which stopped the process inside AsyncHTTPClient) is read as it
# is, and its list refused for its status.
for pair in "closed:gives no HTTP answer: Connection refused" \
    "closes:gives no HTTP answer: the connection was closed before the answer" \
    "not-http:gives no HTTP answer: an answer that is not HTTP/1.1" \
    "status-000:status 0, not one of answers.accepted"; do
    IFS=: read -r kind expected <<<"$pair"
    python3 -c '
import socket, sys, threading
kind = sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
if kind == "closed":  # a port nobody listens on: bound, never listened to, then printed
    print(s.getsockname()[1], flush=True)
    threading.Event().wait()
s.listen(16)
print(s.getsockname()[1], flush=True)
def serve(c):
    c.recv(65536)
    if kind == "not-http":
        c.sendall(b"hello there\r\n\r\n")
    if kind == "status-000":
        c.sendall(b"HTTP/1.1 000 None\r\nContent-Length: 2\r\n\r\n[]")
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
' "$kind" >"$WORK/port" 2>/dev/null &
    BACKEND=$!
    for _ in $(seq 1 300); do [ -s "$WORK/port" ] && break; sleep 0.1; done
    status=0
    "$SIM" run race.json --target "http://127.0.0.1:$(cat "$WORK/port")" --adapter adapter.json >"$WORK/out" 2>&1 || status=$?
    kill "$BACKEND" 2>/dev/null
    wait "$BACKEND" 2>/dev/null || true
    BACKEND=
    if [ "$status" = 69 ] && grep -q "$expected" "$WORK/out"; then
        echo "a target that $kind: refused: $(cat "$WORK/out")"
    else
        echo "FAIL: a target that $kind: exit $status, not 69 saying \"$expected\": $(cat "$WORK/out")"
        failed=1
    fi
done
# FAULT:LEVEL:INVARIANT:EXIT[:SCENARIO] (EXIT: the statuses allowed, separated by /; SCENARIO:
# race.json unless named)
for quad in "check-then-insert:safety:no double booking:1" "limit-outside-lock:safety:per-user limit:1" \
    "ack-not-stored:safety:acknowledged bookings kept:1" "ignored-keys:safety:idempotent retries:1" \
    "ignores-notice:rules:bookable when made:1" "cancel-keeps-slot:rules:linearizable per slot:2" \
    "reserve-ignores-holds:rules:linearizable per slot:1/2" \
    "stored-an-hour-late:safety:acknowledged bookings kept:1" "cancel-anyones:safety:nobody acts as another user:1" \
    "lists-anyones:safety:nobody acts as another user:1" \
    "checkout-without-checkin:rules:check-out after check-in:1" "ignores-access-code:rules:access codes:1:sessions.json" \
    "ignores-cutoff:rules:cutoffs:1:sessions.json" "key-for-any-request:safety:idempotent retries:1" \
    "holds-without-cap:rules:linearizable per user:1/2:holds.json" \
    "ride-ends-in-place:safety:left where the last ride ended:1:sessions.json"; do
    IFS=: read -r fault level invariant expected scenario <<<"$quad"
    caught=
    for attempt in 1 2 3 4 5 6 7 8; do
        status=0
        SCENARIO=${scenario:-race.json} run "$fault" "$level" || status=$?
        if [[ "/$expected/" == *"/$status/"* ]] && grep -q "^FINDING $invariant:" "$WORK/out"; then
            caught=$attempt
            break
        fi
    done
    if [ -n "$caught" ]; then
        echo "$fault: caught as \"$invariant\" (run $caught): $(grep -m1 "^FINDING $invariant:" "$WORK/out")"
        if [ "$fault" = check-then-insert ] && [ -n "${FINDING_PAGE:-}" ]; then
            grep -q "id=\"finding-1\"" "$WORK/$fault.html" || { echo "FAIL: its page draws no finding"; failed=1; }
            cp "$WORK/$fault.html" "$FINDING_PAGE"
        fi
    else
        cat "$WORK/out"
        echo "FAIL: $fault was not caught as \"$invariant\" (exit $expected) under --check $level in 8 runs"
        failed=1
    fi
done
exit $failed
