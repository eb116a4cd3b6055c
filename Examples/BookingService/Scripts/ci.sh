#!/usr/bin/env bash
# CI for the example service: release build, start it on a free port with the bundled scenario
# (a rolling horizon, so it books "now" on any day), validate openapi.yaml, run the
# load-and-check script and schemathesis against it, and check it is still up. The service is
# stopped however the script ends. Run from anywhere; `.ci/run` calls it under a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

SCENARIO=${SCENARIO:-Scenarios/service.json}
LOAD_SECONDS=${LOAD_SECONDS:-60}
SCHEMATHESIS_EXAMPLES=${SCHEMATHESIS_EXAMPLES:-50}
LOG=$(mktemp -t booking-service.XXXXXX)
PID=

stop() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill "$PID" 2>/dev/null || true
        wait "$PID" 2>/dev/null || true
    fi
    rm -f "$LOG"
}
trap stop EXIT

echo "--- build (release, scratch path .build here)"
swift build -c release --scratch-path .build --product BookingService

echo "--- openapi.yaml: openapi-spec-validator"
python3 -m pip install --quiet "openapi-spec-validator==0.9.0"
python3 -m openapi_spec_validator openapi.yaml

echo "--- start: $SCENARIO on a free port"
.build/release/BookingService --scenario "$SCENARIO" --port 0 >"$LOG" 2>&1 &
PID=$!
ADDRESS=
for _ in $(seq 1 300); do
    ADDRESS=$(sed -n 's/^listening on \(.*\)$/\1/p' "$LOG" | head -1)
    [ -n "$ADDRESS" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$LOG"; echo "the service exited before listening" >&2; exit 1; }
    sleep 0.1
done
[ -n "$ADDRESS" ] || { cat "$LOG"; echo "the service did not start listening within 30 s" >&2; exit 1; }
URL="http://$ADDRESS"
echo "service at $URL (pid $PID)"

echo "--- GET /openapi.yaml serves the file"
python3 - "$URL" <<'PY'
import sys, urllib.request
served = urllib.request.urlopen(sys.argv[1] + "/openapi.yaml", timeout=10).read()
assert served == open("openapi.yaml", "rb").read(), "the served document differs from openapi.yaml"
print("same bytes")
PY

echo "--- load and check"
timeout $((LOAD_SECONDS + 60)) python3 Scripts/load_and_check.py --url "$URL" --seconds "$LOAD_SECONDS"

echo "--- schemathesis (all checks, schemathesis.toml here)"
timeout 300 python3 -m pip install --quiet "schemathesis==4.32.5"
timeout 600 schemathesis run "$URL/openapi.yaml" --checks all --max-examples "$SCHEMATHESIS_EXAMPLES" \
    --seed 1 --no-color

echo "--- still up after all of it"
kill -0 "$PID" || { cat "$LOG"; echo "the service died" >&2; exit 1; }
python3 - "$URL" <<'PY'
import sys, urllib.request
assert urllib.request.urlopen(sys.argv[1] + "/stations", timeout=10).status == 200
print("GET /stations: 200")
PY
echo "booking service: all green"
