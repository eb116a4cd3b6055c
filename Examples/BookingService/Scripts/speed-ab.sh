#!/usr/bin/env bash
# Two builds of the example service against the bare INSERT baseline, alternating, so that a
# change's effect is read from one run on a noisy machine: N rounds (3), each running speed.sh's
# `insert` and `postgres` configurations once with BEFORE's binaries, then once with AFTER's.
#
#   Scripts/with-postgres.sh Examples/BookingService/Scripts/speed-ab.sh BEFORE_BIN AFTER_BIN
#
# BEFORE_BIN and AFTER_BIN are directories holding a release BookingService and SpeedBaselines
# (copies of .build/release made before and after the change). N, DURATION (10). Prints each
# run's line (build, round, configuration, requests/s, p50, p99, requests, non-2xx, and the
# server's and PostgreSQL's CPU ms per request), then each build's median postgres / insert ratio
# and its CPU per reservation (steadier than the rate on a busy machine).
set -euo pipefail
cd "$(dirname "$0")"
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_BIN AFTER_BIN" >&2; exit 2; }
N=${N:-3} DURATION=${DURATION:-10}
OUT=$(mktemp -t speed-ab.XXXXXX)
trap 'rm -f "$OUT"' EXIT
for round in $(seq 1 "$N"); do
    for build in before after; do
        bin=$([ "$build" = before ] && echo "$1" || echo "$2")
        BIN=$bin ROUNDS=1 DURATION=$DURATION CONFIGURATIONS="insert postgres" ./speed.sh 2>&1 |
            sed -n "s/^\(insert\|postgres\) 1 /$build $round \1 /p" | tee -a "$OUT"
    done
done
python3 - "$OUT" <<'PY'
import statistics, sys
rates, cpu = {}, {}
for line in open(sys.argv[1]):
    fields = line.split()
    build, round_, configuration, rate = fields[:4]
    rates.setdefault((build, round_), {})[configuration] = float(rate)
    if configuration == "postgres":
        cpu.setdefault(build, []).append((float(fields[8]), float(fields[9])))
for build in ("before", "after"):
    ratios = [r["postgres"] / r["insert"] for (b, _), r in sorted(rates.items()) if b == build and len(r) == 2]
    service, database = (statistics.median(c[i] for c in cpu[build]) for i in (0, 1))
    print(f"{build}: postgres / insert by round {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.3f};"
          f" CPU per reservation: service {service:.3f} ms, PostgreSQL {database:.3f} ms (medians)")
PY
