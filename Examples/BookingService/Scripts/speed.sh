#!/usr/bin/env bash
# The example service's speed table: wrk, 64 connections, POST /reservations with a bearer token
# of one of 1,000 users and a random slot of a catalog of 100 stations x 10 sockets x 24 hours x
# 28 days (most requests are accepted), against each configuration in turn, ROUNDS rounds of
# DURATION seconds each, alternating the configurations; then the median of each one's
# requests a second, p50 and p99, and the ratios the README states.
#
#   Scripts/with-postgres.sh Examples/BookingService/Scripts/speed.sh     (from the root, after
#   SLOTSCHEDULER_CI_GRAPH=1 swift build -c release --traits Postgres,Observability --product P
#   for P = BookingService, then SpeedBaselines)
#
# Configurations: constant (SpeedBaselines: a constant answer), append (SpeedBaselines: a line
# appended and fdatasync'ed per request), memory-bare and memory, journal-bare and journal, insert
# (SpeedBaselines: one INSERT per request on the PostgreSQL database), postgres. The service runs
# either whole (HS256 identity, both rate limits, set high enough never to refuse, so each
# request still passes through its buckets, and /metrics on) or, as *-bare, without them
# (--auth none, --address-limit off, --user-limit off, --metrics off): the issue's target is that
# identity, limits and metrics together cost at most 20 %. BIN (.build/release), ROUNDS (3),
# DURATION (10), CONFIGURATIONS (all of the above).
#
# PROFILE=DIR also samples the server's stacks with perf (cpu-clock, 499 a second) while wrk runs
# and writes DIR/CONFIGURATION-ROUND.txt: each function with the share of the samples in it or
# under it (perf report --children), demangled. (valgrind's callgrind, this repository's profiler
# elsewhere, cannot run the server: valgrind 3.19 stops on its DWARF 5 and its threads.)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-$ROOT/.build/release}
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10}
DATABASE=${SLOTSCHEDULER_DATABASE_URL:-}
command -v wrk >/dev/null || { echo "error: wrk is not installed (apt-get install -y wrk)" >&2; exit 1; }
WORK=$(mktemp -d -t speed.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$WORK"' EXIT

head -c 48 /dev/urandom | base64 >"$WORK/secret"
# The catalog, the users' tokens and wrk's script.
python3 - "$WORK" <<'PY'
import json, os, sys, time
sys.path.insert(0, "Scripts")
from tokens import Tokens, read_secret
work = sys.argv[1]
stations = [{"id": f"S{i}", "name": f"S{i}", "city": "London", "timeZone": "Europe/London",
             "sockets": [{"id": str(k), "connector": "CCS", "powerKW": 50} for k in range(10)]} for i in range(100)]
json.dump({"version": 1, "name": "speed", "seed": 1, "stations": stations,
           "policy": {"maxUpcomingBookings": 100000, "rollingDays": 30},
           "clock": {"start": "2026-01-01T00:00:00Z", "stepSeconds": 1}, "users": {"count": 1000, "firstID": 1}},
          open(os.path.join(work, "speed.json"), "w"))
tokens = Tokens(read_secret(os.path.join(work, "secret")), lifetime=86400)
dates = [time.strftime("%Y-%m-%d", time.gmtime(time.time() + (2 + d) * 86400)) for d in range(28)]
with open(os.path.join(work, "reservations.lua"), "w") as lua:
    lua.write("local tokens = {" + ",".join(f'"{tokens.token(u)}"' for u in range(1, 1001)) + "}\n")
    lua.write("local dates = {" + ",".join(f'"{d}"' for d in dates) + "}\n")
    lua.write("""
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) math.randomseed(id * 7919) end
function request()
  local body = string.format('{"station":"S%d","socket":"%d","date":"%s","hour":%d}',
    math.random(0, 99), math.random(0, 9), dates[math.random(#dates)], math.random(0, 23))
  return wrk.format("POST", "/reservations", {["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)]}, body)
end
""")
PY

# start NAME COMMAND...: starts it, waits for its "listening on", sets PID and URL.
start() {
    local name=$1
    shift
    "$@" >"$WORK/$name.log" 2>&1 &
    PID=$!
    URL=
    for _ in $(seq 1 300); do
        URL=$(sed -n 's/^listening on \([^ ]*\)$/http:\/\/\1/p' "$WORK/$name.log")
        [ -n "$URL" ] && break
        sleep 0.1
    done
    [ -n "$URL" ] || { cat "$WORK/$name.log"; echo "error: $name did not start" >&2; exit 1; }
    # A first request until it is answered 201 (the insert baseline creates its table first).
    for _ in $(seq 1 100); do
        curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/reservations" -H 'Content-Type: application/json' \
            -H "Authorization: Bearer $(sed -n 's/^local tokens = {"\([^"]*\)".*/\1/p' "$WORK/reservations.lua")" \
            -d '{"station":"S0","socket":"0","date":"'"$(date -u -d '+40 days' +%F)"'","hour":1}' | grep -q '^20[01]$' && break
        sleep 0.1
    done
}
# CPU per request, whatever the neighbours take (the rate moves more): cpu_ticks, postgres_ticks.
source "$ROOT/Examples/BookingService/Scripts/cpu-ticks.sh"
stop() {
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=
}
# The database URL with a schema of its own for a round.
schema_url() { case "$DATABASE" in *\?*) echo "$DATABASE&schema=$1" ;; *) echo "$DATABASE?schema=$1" ;; esac; }

# PROFILE: perf samples the server ($PID) while wrk runs; the report goes to $1.
profile_start() {
    perf record -F 499 -e cpu-clock -g -p "$PID" -o "$WORK/perf.data" >"$WORK/perf.log" 2>&1 &
    PERF=$!
}
profile_stop() {
    kill -INT "$PERF" 2>/dev/null || true
    wait "$PERF" 2>/dev/null || true
    perf report -i "$WORK/perf.data" --children --sort sym -g none --percent-limit 0.5 2>/dev/null |
        grep -v '^#' | grep . | { command -v swift-demangle >/dev/null && swift-demangle --simplified || cat; } >"$1"
}
if [ -n "${PROFILE:-}" ]; then
    command -v perf >/dev/null || { echo "error: PROFILE needs perf (apt-get install -y linux-perf)" >&2; exit 1; }
    mkdir -p "$PROFILE"
fi

SERVICE=("$BIN/BookingService" --scenario "$WORK/speed.json" --port 0)
WHOLE=(--auth "hs256:$WORK/secret" --address-limit 1000000/1000000 --user-limit 1000000/1000000 --metrics on)
BARE=(--auth none --address-limit off --user-limit off --metrics off)
configurations=(constant append memory-bare memory journal-bare journal)
[ -n "$DATABASE" ] && configurations+=(insert postgres)
# CONFIGURATIONS="insert postgres" measures only those (a ratio needs both of its pair).
[ -n "${CONFIGURATIONS:-}" ] && read -r -a configurations <<<"$CONFIGURATIONS"
: >"$WORK/results"
for round in $(seq 1 "$ROUNDS"); do
    for configuration in "${configurations[@]}"; do
        case $configuration in
        constant) start "$configuration" "$BIN/SpeedBaselines" --mode constant ;;
        append) start "$configuration" "$BIN/SpeedBaselines" --mode "append:$WORK/append-$round.log" ;;
        memory-bare) start "$configuration" "${SERVICE[@]}" "${BARE[@]}" ;;
        memory) start "$configuration" "${SERVICE[@]}" "${WHOLE[@]}" ;;
        journal-bare) start "$configuration" "${SERVICE[@]}" "${BARE[@]}" --store "journal:$WORK/journal-bare-$round" ;;
        journal) start "$configuration" "${SERVICE[@]}" "${WHOLE[@]}" --store "journal:$WORK/journal-$round" ;;
        insert) start "$configuration" "$BIN/SpeedBaselines" --mode "insert:$DATABASE" ;;
        postgres) start "$configuration" "${SERVICE[@]}" "${WHOLE[@]}" --store "$(schema_url "speed_${round}_$$")" ;;
        esac
        server_before=$(cpu_ticks "$PID") postgres_before=$(postgres_ticks)
        [ -n "${PROFILE:-}" ] && profile_start
        wrk -t2 -c64 -d"${DURATION}s" --latency -s "$WORK/reservations.lua" "$URL" >"$WORK/wrk.out" 2>&1 || true
        server_ticks=$(($(cpu_ticks "$PID") - server_before)) database_ticks=$(($(postgres_ticks) - postgres_before))
        [ -n "${PROFILE:-}" ] && profile_stop "$PROFILE/$configuration-$round.txt"
        stop
        awk -v c="$configuration" -v r="$round" -v st="$server_ticks" -v pt="$database_ticks" -v hz="$(getconf CLK_TCK)" '
            /^Requests\/sec:/ {rate = $2}
            /^ +50%/ {p50 = $2} /^ +99%/ {p99 = $2}
            / requests in / {total = $1}
            /Non-2xx or 3xx responses:/ {errors = $5}
            END {printf "%s %s %s %s %s %s %d %.4f %.4f\n", c, r, rate, p50, p99, total, errors,
                 st * 1000 / hz / total, pt * 1000 / hz / total}' "$WORK/wrk.out" | tee -a "$WORK/results"
    done
done
python3 - "$WORK/results" "$ROUNDS" "$DURATION" <<'PY'
import statistics, sys
def ms(text):
    for unit, factor in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    return float("nan")
rows = {}
for line in open(sys.argv[1]):
    name, _, rate, p50, p99, total, errors, server_cpu, database_cpu = line.split()
    rows.setdefault(name, []).append(
        (float(rate), ms(p50), ms(p99), int(total), int(errors), float(server_cpu), float(database_cpu)))
print(f"\n{sys.argv[2]} rounds of {sys.argv[3]} s, 64 connections; medians (non-2xx: all rounds' refusals;"
      " CPU: milliseconds of the server's and of PostgreSQL's processes per request)")
print("| configuration | requests/s | p50 ms | p99 ms | non-2xx | server CPU | PostgreSQL CPU |")
print("|---|---:|---:|---:|---:|---:|---:|")
median = {}
for name, values in rows.items():
    median[name] = statistics.median(v[0] for v in values)
    database = statistics.median(v[6] for v in values)
    print(f"| {name} | {median[name]:,.0f} | {statistics.median(v[1] for v in values):.2f} | "
          f"{statistics.median(v[2] for v in values):.2f} | {sum(v[4] for v in values):,} of {sum(v[3] for v in values):,} | "
          f"{statistics.median(v[5] for v in values):.3f} | {f'{database:.3f}' if name in ('insert', 'postgres') else '–'} |")
def ratio(a, b):
    if a in median and b in median:
        rounds = ", ".join(f"{x[0] / y[0]:.2f}" for x, y in zip(rows[a], rows[b]))
        print(f"{a} / {b} = {median[a] / median[b]:.2f} (round by round: {rounds})")
print()
ratio("memory", "memory-bare"); ratio("journal", "journal-bare"); ratio("memory", "constant")
ratio("journal", "append"); ratio("postgres", "insert")
PY
