#!/usr/bin/env bash
# Kill test of the journal store through schedule-sim: a threads-mode run books against
# `--store journal:DIR` and is killed with SIGKILL at a seeded moment, KILLS times; after each kill
# `schedule-sim verify-store` reads every run's history (a killed run leaves HISTORY.PID.N.partial,
# readable up to its last complete line) and the reopened journal, and checks: every acknowledged
# booking is there exactly once with its user and slot, nothing is there that no run attempted
# (operations in flight at the kill may have either outcome), I1-I6, I9, I11, I12. Then the next
# run reopens the same journal and continues with another seed; the last one runs to the end.
# Every run is `--resume` (the first on an empty journal): runs only book and write their history,
# verify-store does the checking.
#
#   Scripts/journal-kill.sh
#
# Environment: SEED (1: the kill moments and the runs' seeds), KILLS (10), SCENARIO
# (Scenarios/rush-hour.json), OPERATIONS (300000 per run), THREADS (4), SCHEDULE_SIM or
# SWIFT_BUILD_FLAGS (Scripts/lib/schedule-sim.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh
SEED=${SEED:-1}
KILLS=${KILLS:-10}
SCENARIO=${SCENARIO:-Scenarios/rush-hour.json}
OPERATIONS=${OPERATIONS:-300000}
THREADS=${THREADS:-4}
RANDOM=$SEED

# shellcheck disable=SC2086
BIN=$(schedule_sim_binary ${SWIFT_BUILD_FLAGS:-})
WORK=$(mktemp -d /tmp/journal-kill.XXXXXX)
pid=
trap '[[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null; rm -rf "$WORK"' EXIT
STORE="journal:$WORK/journal"
# The scenario without its expectations: the counts of runs cut short by kills cannot match them.
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); s.pop("expectations", None); json.dump(s, open(sys.argv[2], "w"))' \
    "$SCENARIO" "$WORK/scenario.json"
SCENARIO="$WORK/scenario.json"
histories=()
killed=0

for ((k = 0; k <= KILLS; k++)); do
    h="$WORK/history-$k.jsonl"
    args=(run "$SCENARIO" --store "$STORE" --threads "$THREADS" --seed $((SEED * 1000 + k))
          --operations "$OPERATIONS" --history "$h" --resume --quiet)
    "$BIN" "${args[@]}" >"$WORK/run-$k.log" 2>&1 &
    pid=$!
    if ((k < KILLS)); then
        # Wait (at most 90 s: a loaded machine is slow to open a long journal) until the run is
        # booking, then a seeded 0-0.9 s more.
        for ((w = 0; w < 1800; w++)); do
            compgen -G "$h.$pid.*.partial" >/dev/null && [[ -s $(compgen -G "$h.$pid.*.partial" | head -1) ]] && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        sleep "0.$((RANDOM % 10))"
        kill -9 "$pid" 2>/dev/null || true
        status=0
        wait "$pid" 2>/dev/null || status=$?
        partial=$(compgen -G "$h.$pid.*.partial" | head -1 || true)
        if [[ -n "$partial" ]]; then
            histories+=(--history "$partial")
            killed=$((killed + 1))
            what="killed after $(wc -l <"$partial") history lines"
        else
            [[ $status -eq 0 && -f $h ]] || { echo "run $k: exit $status, no history" >&2; cat "$WORK/run-$k.log" >&2; exit 1; }
            histories+=(--history "$h")
            what="finished before its kill"
        fi
    else
        wait "$pid" || { cat "$WORK/run-$k.log" >&2; exit 1; }
        histories+=(--history "$h")
        what="ran to the end"
    fi
    pid=
    echo "run $k: $what; verify-store over $((${#histories[@]} / 2)) histories:"
    timeout 300 "$BIN" verify-store --store "$STORE" --scenario "$SCENARIO" --operations "$OPERATIONS" \
        "${histories[@]}" --report "$WORK/report-$k.json" | sed 's/^/  /'
done
((killed > 0)) || { echo "no kill landed while a run was booking: raise OPERATIONS" >&2; exit 1; }

# A catalog change on the journal the runs left (the first station's first socket retired, from
# the scenario's start on), then verify-store again with its history: the displacements it made
# are the ones the store holds, and the directory reopens with the new catalog.
python3 - "$SCENARIO" "$WORK/catalog.json" <<'PY'
import json, sys
stations = json.load(open(sys.argv[1]))["stations"]
stations[0]["sockets"] = stations[0]["sockets"][1:] or stations[0]["sockets"]
json.dump({"stations": stations}, open(sys.argv[2], "w"))
PY
start=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["clock"]["start"])' "$SCENARIO")
"$BIN" catalog apply "$WORK/catalog.json" --store "$STORE" --scenario "$SCENARIO" --at "$start" \
    --history "$WORK/catalog.jsonl" | sed -n '1p;/^displaced/p' | sed 's/^/  /'
echo "after the catalog change; verify-store over $((${#histories[@]} / 2 + 1)) histories:"
timeout 300 "$BIN" verify-store --store "$STORE" --scenario "$SCENARIO" --operations "$OPERATIONS" \
    "${histories[@]}" --history "$WORK/catalog.jsonl" --report "$WORK/report-catalog.json" | sed 's/^/  /'
ls "$WORK/journal" | grep -q '\.snap$' || { echo "no snapshot holds the changed catalog" >&2; exit 1; }
echo "journal kill test (seed $SEED): $killed kills, every verify-store passed"
