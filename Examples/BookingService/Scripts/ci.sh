#!/usr/bin/env bash
# CI for the example service: a build (CONFIGURATION: release by default; or, with SKIP_BUILD=1,
# the binary BOOKING_SERVICE names, as `.ci/run` builds it in the root package's graph), then,
# with the bundled scenario (a rolling horizon, so it books "now" on any day):
# - openapi.yaml validated; in memory: load-and-check, lifecycle, sessions (access codes,
#   check-in, check-out), identity (HS256), hostile clients, schemathesis with a token, the
#   service still up; `schedule-sim run --target --check rules` (here and for each store below),
#   and three users' limits raced (Scenarios/service-limit-race.json), held to the model;
# - chargers (--ocpp, in memory): a real OCPP 2.0.1 charge point (PyPI `ocpp`) against bookings,
#   faults, check-in at a coded socket and check-out, reconnections, refused upgrades and bad
#   frames; hostile clients again;
# - a connection flood under a low descriptor limit; every connection busy and one more;
#   identity with an RS256 JSON Web Key Set;
# - traces exported over OTLP/HTTP (--otlp-endpoint) to a receiver here (PyPI opentelemetry-proto);
# - a durable journal: load, a live hold, a check-out, `kill -9`, a restart, every 201 (and the
#   hold, and the check-out) kept;
# - abuse limits (429 with Retry-After, per user and per address);
# - two instances on one PostgreSQL database (a throwaway server, Scripts/with-postgres.sh,
#   unless SLOTSCHEDULER_DATABASE_URL names one): load on both, one killed mid-run and
#   restarted, every 201 kept; an Idempotency-Key repeat answered by the other instance as the
#   first was; the limit race across both; `schedule-sim run --target` on both at once (one
#   killed mid-run, restarted on its port), the history held to the model's rules (no double
#   booking, no user above the limit, and every answer one order of the rules explains).
# Every instance is stopped however the script ends. Run from anywhere; `.ci/run` calls it under
# a timeout. Sizes: LOAD_SECONDS (60) of the first load phase, SCHEMATHESIS_EXAMPLES (50) fuzzed
# an operation, SIMULATE_OPERATIONS (the scenario's own) of each `schedule-sim run --target`,
# KILL_OPERATIONS (6000) of the one across both PostgreSQL instances.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# Two instances share one PostgreSQL database below: run under a throwaway server unless one is given.
if [ -z "${SLOTSCHEDULER_DATABASE_URL:-}" ]; then
    exec ../../Scripts/with-postgres.sh "$PWD/Scripts/ci.sh" "$@"
fi

SCENARIO=${SCENARIO:-Scenarios/service.json}
CONFIGURATION=${CONFIGURATION:-release}
SERVICE=${BOOKING_SERVICE:-.build/$CONFIGURATION/BookingService}
LOAD_SECONDS=${LOAD_SECONDS:-60}
SCHEMATHESIS_EXAMPLES=${SCHEMATHESIS_EXAMPLES:-50}
WORK=$(mktemp -d -t booking-service.XXXXXX)
PID=
URL=

# Every instance started (killed on exit, whatever happens).
STARTED=()

stop() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    PID=
}
trap 'stop; for p in "${STARTED[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT

# The HS256 secret the service verifies tokens with, and the checks mint them with.
SECRET="$WORK/secret"
head -c 48 /dev/urandom | base64 > "$SECRET"

# Starts the service (tokens verified with $SECRET unless "$@" gives another --auth) with extra
# arguments "$@" (under a descriptor limit of $DESCRIPTORS, if
# set); sets PID and URL once it listens.
start() {
    local log="$WORK/service-$((${#STARTED[@]} + 1)).log" address=
    if [ -n "${DESCRIPTORS:-}" ]; then
        (ulimit -n "$DESCRIPTORS" && exec "$SERVICE" --scenario "$SCENARIO" --port 0 --auth "hs256:$SECRET" "$@") \
            >"$log" 2>&1 &
    else
        "$SERVICE" --scenario "$SCENARIO" --port 0 --auth "${AUTH:-hs256:$SECRET}" "$@" >"$log" 2>&1 &
    fi
    PID=$!
    STARTED+=("$PID")
    for _ in $(seq 1 300); do
        address=$(sed -n 's/^listening on \(.*\)$/\1/p' "$log" | head -1)
        [ -n "$address" ] && break
        kill -0 "$PID" 2>/dev/null || { cat "$log"; echo "the service exited before listening" >&2; exit 1; }
        sleep 0.1
    done
    [ -n "$address" ] || { cat "$log"; echo "the service did not listen within 30 s" >&2; exit 1; }
    URL="http://$address"
    echo "service at $URL (pid $PID) $*"
}

# The probes: live, and ready (the store takes writes), each answering its JSON.
health_check() {
    python3 - "$URL" "$1" <<'PY'
import json, sys, urllib.request
url, store = sys.argv[1], sys.argv[2]
for path, status in (("/health/live", "live"), ("/health/ready", "ready")):
    answer = urllib.request.urlopen(url + path, timeout=10)
    body = json.loads(answer.read())
    assert answer.status == 200 and body == {"status": status}, (path, answer.status, body)
    assert answer.headers["Cache-Control"] == "no-store", (path, dict(answer.headers))
print(f"{store}: GET /health/live and /health/ready: 200")
PY
}

# SKIP_BUILD=1: $SERVICE is already built (.ci/run builds it in a step of its own).
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    echo "--- build ($CONFIGURATION, scratch path .build here)"
    swift build -c "$CONFIGURATION" --scratch-path .build --product BookingService
fi

echo "--- openapi.yaml: openapi-spec-validator"
timeout 300 python3 -m pip install --quiet "openapi-spec-validator==0.9.0"
python3 -m openapi_spec_validator openapi.yaml

# The simulator, driving the service over HTTP through schedule-sim-adapter.json (a copy made by
# .ci/run, else the root package's debug build, built here if missing).
SIM=${SCHEDULE_SIM:-../../.build/debug/schedule-sim}
if [ ! -x "$SIM" ]; then
    swift build --package-path ../.. --product schedule-sim
fi
simulate() {
    echo "--- schedule-sim run --target --check rules (safety, and linearizable against the rules): $1"
    timeout 300 "$SIM" run Scenarios/service.json --target "$URL" --adapter schedule-sim-adapter.json \
        --secret "$SECRET" --concurrency 64 --check rules ${SIMULATE_OPERATIONS:+--operations "$SIMULATE_OPERATIONS"}
}

# The limit race, held to the model: three users with about twenty requests each in flight, on
# TARGETS (one URL, or several instances of one ledger).
limit_race() {
    echo "--- schedule-sim run --target --check rules: three users' limits raced ($1)"
    timeout 300 "$SIM" run Scenarios/service-limit-race.json --target "$2" --adapter schedule-sim-adapter.json \
        --secret "$SECRET" --concurrency 64 --check rules
}

# The load checks come from one address, as many users at once: no rate limits there (the
# limits have a check of their own below).
UNLIMITED=(--address-limit off --user-limit off)

echo "--- in memory: $SCENARIO"
start "${UNLIMITED[@]}"

echo "--- GET /openapi.yaml serves the file"
python3 - "$URL" <<'PY'
import sys, urllib.request
served = urllib.request.urlopen(sys.argv[1] + "/openapi.yaml", timeout=10).read()
assert served == open("openapi.yaml", "rb").read(), "the served document differs from openapi.yaml"
print("same bytes")
PY

echo "--- load and check"
timeout $((LOAD_SECONDS + 60)) python3 Scripts/load_and_check.py --scenario "$SCENARIO" --url "$URL" --secret "$SECRET" --seconds "$LOAD_SECONDS"

echo "--- lifecycle: holds, confirm, release, reschedule, any socket, check-in"
timeout 120 python3 Scripts/lifecycle_check.py --url "$URL" --secret "$SECRET"

echo "--- sessions: access codes never shown, wrong code 422, check-in, check-out, limit freed"
timeout 120 python3 Scripts/session_check.py --url "$URL" --secret "$SECRET" --scenario "$SCENARIO" --catalog fixed

echo "--- identity: no token, bad tokens (signature, alg none, expired, sub), another user's bookings"
timeout 120 python3 Scripts/identity_check.py --url "$URL" --secret "$SECRET"

echo "--- Idempotency-Key: repeats answered as the first, reuse refused, problem+json errors"
timeout 60 python3 Scripts/idempotency_check.py --url "$URL" --secret "$SECRET"
simulate memory
limit_race memory "$URL"

echo "--- hostile clients: unreadable requests answered in JSON; CONNECT, Upgrade, silent connections, trickled requests and clients reading no answers closed; inexact integers refused; 100 Continue"
timeout 120 python3 Scripts/hostile_check.py --url "$URL" --secret "$SECRET"

echo "--- schemathesis (all checks, schemathesis.toml here)"
timeout 300 python3 -m pip install --quiet "schemathesis==4.32.5"
# As one user with a valid token: schemathesis checks the contract, not identity (above).
TOKEN=$(cd Scripts && python3 -c 'import sys, tokens; print(tokens.Tokens(tokens.read_secret(sys.argv[1])).token(8001))' "$SECRET")
timeout 600 schemathesis run "$URL/openapi.yaml" --checks all --max-examples "$SCHEMATHESIS_EXAMPLES" \
    --seed 1 --no-color --header "Authorization: Bearer $TOKEN"

echo "--- still up after all of it"
kill -0 "$PID" || { cat "$WORK"/service-1.log; echo "the service died" >&2; exit 1; }
python3 - "$URL" <<'PY'
import sys, urllib.request
assert urllib.request.urlopen(sys.argv[1] + "/stations", timeout=10).status == 200
print("GET /stations: 200")
PY
health_check memory
stop

echo "--- chargers (--ocpp): ReserveNow, CancelReservation, faults, check-in and check-out, reconnections, refused upgrades, bad frames"
timeout 300 python3 -m pip install --quiet "ocpp==2.1.0" "websockets==15.0.1"
# The scenario with a day of early check-in, no cancellation cutoff and one socket at an `ocpp`
# address; a reserve lead and a fault horizon that cover the next bookable hour.
python3 Scripts/ocpp_check.py --prepare "$SCENARIO" "$WORK/ocpp"
SCENARIO="$WORK/ocpp/scenario.json" start --ocpp --ocpp-passwords "$WORK/ocpp/passwords.json" \
    --ocpp-reserve-lead 120 --ocpp-fault-horizon 3 "${UNLIMITED[@]}"
timeout 120 python3 Scripts/ocpp_check.py --url "$URL" --secret "$SECRET" --passwords "$WORK/ocpp/passwords.json" \
    --scenario "$WORK/ocpp/scenario.json"
echo "--- hostile clients with --ocpp (the WebSocket upgrade's pipeline in front): the same answers"
timeout 120 python3 Scripts/hostile_check.py --url "$URL" --secret "$SECRET"
health_check "memory with --ocpp"
stop

echo "--- connection flood: 600 silent connections (and 3 reading no answers) against a descriptor limit of 256"
# A long request deadline: the flood, the stalled readers and their checks take several seconds
# on a loaded machine, and the request being read must outlast them (it is closed only by a
# deadline, never to make room).
DESCRIPTORS=256 start --idle-timeout 60
timeout 60 python3 Scripts/hostile_check.py --url "$URL" --secret "$SECRET" --flood 600
stop

echo "--- every connection busy (--max-connections 4), with and without --ocpp: one more closed at once, the service up"
start --max-connections 4
timeout 60 python3 Scripts/hostile_check.py --url "$URL" --secret "$SECRET" --busy 4
stop
SCENARIO="$WORK/ocpp/scenario.json" start --ocpp --ocpp-passwords "$WORK/ocpp/passwords.json" --max-connections 4
timeout 60 python3 Scripts/hostile_check.py --url "$URL" --secret "$SECRET" --busy 4
stop

echo "--- identity with a JSON Web Key Set (RS256): the same checks, and HS256 over the public key refused"
timeout 300 python3 -m pip install --quiet "cryptography==48.0.0"
mkdir "$WORK/jwks"
python3 Scripts/identity_check.py --make-jwks "$WORK/jwks"
AUTH="jwks:$WORK/jwks/jwks.json" start "${UNLIMITED[@]}"
timeout 120 python3 Scripts/identity_check.py --url "$URL" --jwks-key "$WORK/jwks/private.pem"
stop

echo "--- traces: --otlp-endpoint to an OTLP/HTTP receiver (swift-otel); a request's span, the store's under it, the caller's trace continued"
timeout 300 python3 -m pip install --quiet "opentelemetry-proto==1.45.2"
timeout 120 python3 Scripts/otlp_check.py --service "$SERVICE" --scenario "$SCENARIO" --secret "$SECRET"

echo "--- durable: --journal, load, kill -9, restart, every 201 still there"
start --store "journal:$WORK/journal" "${UNLIMITED[@]}"
timeout 120 python3 Scripts/load_and_check.py --scenario "$SCENARIO" --url "$URL" --secret "$SECRET" --seconds 20 --save "$WORK/records.json"
timeout 120 python3 Scripts/lifecycle_check.py --url "$URL" --secret "$SECRET" --save "$WORK/lifecycle.json"
timeout 120 python3 Scripts/session_check.py --url "$URL" --secret "$SECRET" --scenario "$SCENARIO" \
    --save "$WORK/sessions.json"
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
PID=
start --store "journal:$WORK/journal" "${UNLIMITED[@]}"
timeout 120 python3 Scripts/load_and_check.py --scenario "$SCENARIO" --url "$URL" --secret "$SECRET" --verify "$WORK/records.json"
timeout 120 python3 Scripts/lifecycle_check.py --url "$URL" --secret "$SECRET" --verify "$WORK/lifecycle.json"
timeout 120 python3 Scripts/session_check.py --url "$URL" --secret "$SECRET" --scenario "$SCENARIO" \
    --verify "$WORK/sessions.json"
simulate journal
health_check journal
stop
# Rides that end elsewhere: check-outs that park the vehicle ({latitude} {longitude}), then the
# station's place read back through answers.places and held to I21 (left where the last ride
# ended). The teaching backend's sessions.json opens check-in a day early, so that rides are
# checked in and out within the run on the service's real clock; the journal relocates.
echo "--- schedule-sim run --target: rides that move the vehicle (FaultyBackends/sessions.json, journal)"
SCENARIO=../FaultyBackends/sessions.json start --store "journal:$WORK/vehicles" "${UNLIMITED[@]}"
timeout 300 "$SIM" run ../FaultyBackends/sessions.json --target "$URL" --adapter schedule-sim-adapter.json \
    --secret "$SECRET" --concurrency 16 --check rules --operations 3000 --history "$WORK/vehicles.jsonl" |
    tee "$WORK/vehicles.txt"
grep -q "left where the last ride ended (1 stations read)" "$WORK/vehicles.txt"
python3 - "$WORK/vehicles.jsonl" <<'PY'
import json, sys
moved = sum(1 for line in open(sys.argv[1]) for e in [json.loads(line)]
            if e.get("operation") == "checkOut" and e.get("kind") == "ok" and "leftAt" in e)
print(f"check-outs that moved the vehicle, answered as made: {moved}")
sys.exit(0 if moved else "FAIL: no check-out moved the vehicle, so I21 judged nothing")
PY
stop

echo "--- abuse limits: 429 with Retry-After per user and per address; probes unlimited; /metrics"
# Slow refills (a token every 5 s per user, 2 a second per address): the checks see the limits
# however slowly a loaded machine answers.
start --user-limit 0.2/10 --address-limit 2/60
timeout 60 python3 Scripts/limits_check.py --url "$URL" --secret "$SECRET"
stop
echo "--- --metrics off: no /metrics, the rest served"
start --metrics off
for check in "/metrics 404" "/health/ready 200" "/stations 200"; do
    read -r path want <<<"$check"
    got=$(curl -s -o /dev/null -w '%{http_code}' "$URL$path")
    [ "$got" = "$want" ] || { echo "FAIL: GET $path with --metrics off answered $got, not $want" >&2; exit 1; }
done
stop

echo "--- PostgreSQL: two instances on one database under load, one killed (kill -9) mid-run and restarted"
start --store "$SLOTSCHEDULER_DATABASE_URL" "${UNLIMITED[@]}"
FIRST_URL=$URL FIRST_PID=$PID
start --store "$SLOTSCHEDULER_DATABASE_URL" "${UNLIMITED[@]}"
SECOND_PID=$PID
timeout 180 python3 Scripts/load_and_check.py --scenario "$SCENARIO" --url "$FIRST_URL,$URL" --secret "$SECRET" --seconds 20 \
    --save "$WORK/pg-records.json" &
LOAD=$!
sleep 6
kill -9 "$SECOND_PID"
wait "$SECOND_PID" 2>/dev/null || true
wait "$LOAD"
start --store "$SLOTSCHEDULER_DATABASE_URL" "${UNLIMITED[@]}"
timeout 120 python3 Scripts/load_and_check.py --scenario "$SCENARIO" --url "$URL" --secret "$SECRET" --verify "$WORK/pg-records.json"
timeout 120 python3 Scripts/lifecycle_check.py --url "$FIRST_URL" --secret "$SECRET" --save "$WORK/pg-lifecycle.json"
timeout 120 python3 Scripts/lifecycle_check.py --url "$URL" --secret "$SECRET" --verify "$WORK/pg-lifecycle.json"
timeout 120 python3 Scripts/session_check.py --url "$FIRST_URL" --secret "$SECRET" --scenario "$SCENARIO" \
    --save "$WORK/pg-sessions.json"
timeout 120 python3 Scripts/session_check.py --url "$URL" --secret "$SECRET" --scenario "$SCENARIO" \
    --verify "$WORK/pg-sessions.json"
# Repeats sent to the other instance: the kept Idempotency-Key answers are the database's.
timeout 60 python3 Scripts/idempotency_check.py --url "$FIRST_URL" --second-url "$URL" --secret "$SECRET"
simulate "PostgreSQL, the restarted instance"
limit_race "PostgreSQL, both instances" "$FIRST_URL,$URL"
health_check postgres

echo "--- schedule-sim run --target --check rules across both instances, one killed (kill -9) mid-run"
# The rules' own check of two instances on one ledger: each worker drives one instance; the
# second is killed a second into the run and restarted on its port, so its calls in flight end
# unknown and the rest are answered again. Enough operations that the run outlasts the kill.
PORT=${URL##*:}
timeout 300 "$SIM" run Scenarios/service.json --target "$FIRST_URL,$URL" --adapter schedule-sim-adapter.json \
    --secret "$SECRET" --concurrency 64 --check rules --operations "${KILL_OPERATIONS:-6000}" &
SIMULATION=$!
sleep 1
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
start --store "$SLOTSCHEDULER_DATABASE_URL" "${UNLIMITED[@]}" --port "$PORT"
wait "$SIMULATION"
stop
PID=$FIRST_PID
stop

echo "booking service: all green"
