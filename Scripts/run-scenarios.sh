#!/usr/bin/env bash
# Runs every bundled scenario with the release build of schedule-sim; fails on the first failure.
# Also checks determinism on one scenario and runs five in threads mode (linearizability).
# Usage: Scripts/run-scenarios.sh   (from anywhere; CI calls it)
# Environment: SCHEDULE_SIM, a built schedule-sim to run (CI's); without it, a release build with
# SWIFT_BUILD_FLAGS, extra `swift build` flags.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh

# shellcheck disable=SC2086 # the flags are words
BIN=$(schedule_sim_binary ${SWIFT_BUILD_FLAGS:-})

scenarios=()
for file in Scenarios/*.json; do
    [[ "$file" == *schema.json || "$file" == *.report.json ]] || scenarios+=("$file")
done
"$BIN" check "${scenarios[@]}"

failed=0
for scenario in "${scenarios[@]}"; do
    echo "=== $scenario"
    if ! "$BIN" run "$scenario"; then
        echo "FAILED: $scenario" >&2
        failed=1
    fi
done

echo "=== determinism"
"$BIN" run Scenarios/rush-hour.json --check-determinism --quiet || failed=1
echo "=== threads"
"$BIN" run Scenarios/rush-hour.json --threads 4 --quiet || failed=1
"$BIN" run Scenarios/cancel-and-rebook.json --threads 4 --quiet || failed=1
"$BIN" run Scenarios/closed-socket-and-overrides.json --threads 4 --quiet || failed=1
"$BIN" run Scenarios/lifecycle.json --threads 4 --quiet || failed=1
"$BIN" run Scenarios/check-in.json --threads 4 --quiet || failed=1

echo "=== journal store (durable, threads), then verify-store on the reopened journal"
JOURNAL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/schedule-sim-journal.XXXXXX")
"$BIN" run Scenarios/cancel-and-rebook.json --store "journal:$JOURNAL_DIR/j" --threads 4 \
    --history "$JOURNAL_DIR/history.jsonl" --quiet || failed=1
"$BIN" verify-store --store "journal:$JOURNAL_DIR/j" --scenario Scenarios/cancel-and-rebook.json \
    --history "$JOURNAL_DIR/history.jsonl" --quiet || failed=1
rm -rf "$JOURNAL_DIR"

echo "=== output files"
Scripts/cli-output-files.sh "$BIN" || failed=1

if [[ $failed -ne 0 ]]; then
    echo "some scenarios failed" >&2
    exit 1
fi
echo "all scenarios passed"
