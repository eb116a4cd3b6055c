#!/usr/bin/env bash
# The scenario schema and `schedule-sim check` must give the same verdict: every bundled scenario
# (valid for both) and a set of invalid ones made from a bundled scenario (refused by both) are
# checked with a real JSON Schema validator (check-jsonschema, from PyPI) and with schedule-sim.
# Usage: Scripts/schema-cross-check.sh [BIN]   (CI: after `pip install check-jsonschema`)
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh
BIN=${1:-$(schedule_sim_binary)}
SCHEMA=Scenarios/scenario.schema.json
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Invalid cases: name and a Python expression that mutates the scenario `s`.
python3 - "$WORK" <<'PY'
import json, sys
folder = sys.argv[1]
base = json.load(open("Scenarios/closed-socket-and-overrides.json"))
cases = {
    "station-id-leading-space": "s['stations'][0]['id'] = ' ' + s['stations'][0]['id']",
    "station-id-trailing-space": "s['stations'][0]['id'] += ' '",
    "socket-id-tab": "s['stations'][0]['sockets'][0]['id'] = 'a\\tb'",
    "socket-id-newline": "s['stations'][0]['sockets'][0]['id'] = 'a\\nb'",
    "station-id-empty": "s['stations'][0]['id'] = ''",
    "station-id-129-bytes": "s['stations'][0]['id'] = 'x' * 129",
    "last-date-and-rolling-days": "s['policy']['lastDate'] = '2030-01-01'; s['policy']['rollingDays'] = 3",
    "version-2": "s['version'] = 2",
    "users-count-0": "s['users']['count'] = 0",
    "unknown-field": "s['typo'] = 1",
    "unknown-mix-field": "s['workload']['mix']['cancle'] = 1",
    "unknown-policy-field": "s['policy']['maxUpcomingBooking'] = 3",
    "unknown-socket-field": "s['stations'][0]['sockets'][0]['powerkw'] = 22",
    "max-upcoming-negative": "s['policy']['maxUpcomingBookings'] = -1",
    "odd-date": "s['overrides'][0]['date'] = '2018-+6-+8'",
    "repeated-opening-hour": "s['stations'][0]['openingHours'] = [8, 8, 9]",
    "users-count-fraction": "s['users']['count'] = 2.5",
    "opening-hour-fraction": "s['stations'][0]['openingHours'] = [8, 9.5]",
    "zone-fixed-offset": "s['stations'][0]['timeZone'] = 'GMT+0530'",
    "zone-utc-offset": "s['stations'][0]['timeZone'] = 'UTC+05:30'",
    "zone-lower-case-offset": "s['stations'][0]['timeZone'] = 'utc+3'",
    "zone-empty": "s['stations'][0]['timeZone'] = ''",
    "zone-trailing-space": "s['stations'][0]['timeZone'] = 'Asia/Kolkata '",
    "mix-hold-negative": "s['workload']['mix']['hold'] = -1",
    "mix-any-socket-too-large": "s['workload']['mix']['anySocket'] = 1000001",
    "hold-seconds-0": "s['policy']['holdSeconds'] = 0",
    "max-holds-per-user-1001": "s['policy']['maxHoldsPerUser'] = 1001",
    "step-op-unknown": "s['steps'][0]['op'] = 'teleport'",
    "no-show-grace-3601": "s['policy']['noShowGraceSeconds'] = 3601",
    "early-check-in-negative": "s['policy']['earlyCheckInSeconds'] = -1",
    "no-show-limit-days-0": "s['policy']['noShowLimit'] = {'noShows': 1, 'days': 0, 'limit': 1}",
    "no-show-limit-without-limit": "s['policy']['noShowLimit'] = {'noShows': 1, 'days': 7}",
    "mix-check-in-negative": "s['workload']['mix']['checkIn'] = -1",
    "station-event-status-unknown": "s['stationEvents'] = [{'atOperation': 1, 'station': s['stations'][0]['id'], 'socket': s['stations'][0]['sockets'][0]['id'], 'status': 'Broken'}]",
    "station-event-horizon-0": "s['stationEvents'] = [{'atOperation': 1, 'station': s['stations'][0]['id'], 'socket': s['stations'][0]['sockets'][0]['id'], 'status': 'Faulted', 'faultHorizonHours': 0}]",
    "station-event-without-socket": "s['stationEvents'] = [{'atOperation': 1, 'station': s['stations'][0]['id'], 'status': 'Faulted'}]",
    "left-within-km-negative": "s['workload']['leftWithinKm'] = -1",
    "left-within-km-without-coordinate": "s['workload']['leftWithinKm'] = 1; del s['stations'][0]['coordinate']",
    "left-at-off-earth": "s['steps'].append({'op': 'checkOut', 'user': 1, 'booking': 'a', 'leftAt': {'latitude': 91, 'longitude': 0}})",
    "left-at-on-a-cancel": "s['steps'].append({'op': 'cancel', 'user': 1, 'booking': 'a', 'leftAt': {'latitude': 56, 'longitude': -3}})",
    "access-code-on-a-reserve": "s['steps'][0]['accessCode'] = 'QR-1'",
    "any-socket-power-negative": "s['steps'].append({'op': 'anySocket', 'user': 1, 'station': s['stations'][0]['id'], 'connector': 'CCS', 'minimumPowerKW': -1, 'date': '2018-06-07', 'hour': 9})",
}
for name, change in cases.items():
    s = json.loads(json.dumps(base))
    exec(change)
    with open(f"{folder}/invalid-{name}.json", "w") as f:
        json.dump(s, f)
PY

# One validator run over every file (a Python start per file took most of the step's 2 minutes):
# check-jsonschema names each file it refuses, `FILE::PATH: message`, one line per error.
files=()
for file in Scenarios/*.json; do
    [[ "$file" == *schema.json || "$file" == *.report.json ]] || files+=("$file")
done
files+=("$WORK"/invalid-*.json)
schema_report=$(check-jsonschema --schemafile "$SCHEMA" "${files[@]}" 2>&1 || true)

failed=0
verdict_schema() { grep -qF -- "  $1::" <<<"$schema_report" && echo invalid || echo valid; }
verdict_sim() { "$BIN" check "$1" >/dev/null 2>&1 && echo valid || echo invalid; }
compare() {
    local file="$1" want="$2" schema sim
    schema="$(verdict_schema "$file")"
    sim="$(verdict_sim "$file")"
    if [[ "$schema" != "$want" || "$sim" != "$want" ]]; then
        echo "DISAGREE: $(basename "$file"): schema $schema, schedule-sim $sim, expected $want" >&2
        failed=1
    else
        echo "agree: $(basename "$file"): $want"
    fi
}
for file in "${files[@]}"; do
    case $file in
        "$WORK"/invalid-*) compare "$file" invalid ;;
        *) compare "$file" valid ;;
    esac
done
[[ $failed -eq 0 ]] && echo "schema and schedule-sim agree on every case"
exit $failed
