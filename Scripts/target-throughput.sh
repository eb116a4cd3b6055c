#!/usr/bin/env bash
# How fast schedule-sim's driver (`run --target`) sends requests, against wrk with as many
# connections, both against one constant endpoint (nginx answering `[]` to every request) on this
# machine, in one run, alternating: ROUNDS rounds of wrk then the driver, each about DURATION seconds long.
# Prints each measurement, the medians and the ratio driver / wrk.
#
#   Scripts/target-throughput.sh [SCHEDULE_SIM]
#   (a release build: swift build -c release --product schedule-sim, with --traits AsyncHTTP for
#   AsyncHTTPClient, without for URLSession)
#
# CONNECTIONS (64), ROUNDS (3), DURATION (10 s). Needs wrk and nginx (Debian: wrk, nginx-light).
set -euo pipefail
cd "$(dirname "$0")/.."
SIM=${1:-${SCHEDULE_SIM:-.build/release/schedule-sim}}
CONNECTIONS=${CONNECTIONS:-64} ROUNDS=${ROUNDS:-3} SECONDS_EACH=${DURATION:-10}
WORK=$(mktemp -d -t target-throughput.XXXXXX)
NGINX=
trap '[ -n "$NGINX" ] && kill "$NGINX" 2>/dev/null; rm -rf "$WORK"' EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 10000000;
    client_body_temp_path $WORK;
    server {
        listen 127.0.0.1:$PORT;
        location / { default_type application/json; return 200 '[]'; }
    }
}
EOF
/usr/sbin/nginx -c "$WORK/nginx.conf" -p "$WORK" &
NGINX=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/" >/dev/null && break; sleep 0.1; done

# The driver's adapter: every operation is a GET of the constant answer (a reservation "made"
# with no id, a list of no bookings).
cat >"$WORK/adapter.json" <<'EOF'
{
  "version": 1, "name": "constant endpoint",
  "operations": {"reserve": {"method": "GET", "path": "/"}, "bookings": {"method": "GET", "path": "/"}},
  "answers": {"accepted": [200], "refused": [409], "booking": "/id",
              "list": {"items": "", "id": "/id", "station": "/s", "socket": "/k", "date": "/d", "hour": "/h"}}
}
EOF

wrk_rate() {
    wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" "http://127.0.0.1:$PORT/" | awk '/^Requests\/sec:/ {print $2}'
}
# The driver's rate at about SECONDS_EACH seconds: the operations are sized from the first round.
OPERATIONS=20000
driver_rate() {
    local out rate
    out=$("$SIM" run Examples/FaultyBackends/race.json --target "http://127.0.0.1:$PORT" --adapter "$WORK/adapter.json" \
        --concurrency "$CONNECTIONS" --operations "$OPERATIONS")
    rate=$(echo "$out" | sed -n 's/^.*operations in .* s (\([0-9]*\)\/s).*$/\1/p')
    OPERATIONS=$((rate * SECONDS_EACH))
    echo "$rate"
}

driver_rate >/dev/null # warm up, and size the rounds
echo "round  wrk req/s  driver req/s  ($CONNECTIONS connections, ${SECONDS_EACH} s each, nginx constant endpoint)"
wrk_rates=() driver_rates=()
for round in $(seq 1 "$ROUNDS"); do
    w=$(wrk_rate)
    d=$(driver_rate)
    wrk_rates+=("$w") driver_rates+=("$d")
    printf '%5d %10.0f %13.0f\n' "$round" "$w" "$d"
done
python3 - "${wrk_rates[*]}" "${driver_rates[*]}" <<'PY'
import statistics, sys
w = statistics.median(float(x) for x in sys.argv[1].split())
d = statistics.median(float(x) for x in sys.argv[2].split())
print(f"median: wrk {w:.0f}/s, driver {d:.0f}/s; driver / wrk = {d / w:.2f}")
PY
