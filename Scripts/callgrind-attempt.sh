#!/usr/bin/env bash
# Instructions per attempt of Ledger.attempt and Scheduler.attempt, counted by valgrind's callgrind
# on Benchmarks/AttemptProfile (see its main.swift: the benchmark workload, 200,000 attempts of
# warm-up, then 100,000 counted). Instruction counts repeat run to run on a busy machine, so two
# trees compare in one run:
#
#   Scripts/callgrind-attempt.sh            # this tree
#   Scripts/callgrind-attempt.sh REV        # REV (checked out in a temporary worktree), then this tree
#
# Prints a Markdown table: mode, instructions per attempt for each tree, and the change.
# Environment: MODES (ledger scheduler; also ledger-history, scheduler-history, ledger-batches,
# scheduler-batches).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
MODES=${MODES:-ledger scheduler}
command -v valgrind >/dev/null || { echo "valgrind is missing (apt-get install valgrind)" >&2; exit 69; }

WORK=$(mktemp -d /tmp/callgrind-attempt.XXXXXX)
trap 'git worktree remove --force "$WORK/base" 2>/dev/null || true; rm -rf "$WORK"' EXIT

build() {
    swift build --package-path "$1/Benchmarks" -c release -Xswiftc -g --product AttemptProfile \
        --scratch-path "$1/Benchmarks/.build-profile" >&2
}

# Instructions per counted attempt of `mode` in tree $1.
per_attempt() {
    local out="$WORK/callgrind.$RANDOM"
    valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect='*measured*' \
        "$1/Benchmarks/.build-profile/release/AttemptProfile" "$2" >/dev/null 2>&1
    awk '/^(summary|totals):/ { printf "%.1f\n", $2 / 100000; exit }' "$out"
}

trees=()
labels=()
if [[ $# -ge 1 ]]; then
    git worktree add --detach "$WORK/base" "$1" >/dev/null
    trees+=("$WORK/base")
    labels+=("$(git rev-parse --short "$1")")
fi
trees+=("$PWD")
labels+=("$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Benchmarks || echo +changes)")
for tree in "${trees[@]}"; do build "$tree"; done

header="| mode |"
rule="|---|"
for label in "${labels[@]}"; do header+=" $label |"; rule+="---:|"; done
[[ ${#trees[@]} -eq 2 ]] && { header+=" change |"; rule+="---:|"; }
echo "$header"
echo "$rule"
for mode in $MODES; do
    row="| \`$mode\` |"
    counts=()
    for tree in "${trees[@]}"; do
        counts+=("$(per_attempt "$tree" "$mode")")
        row+=" ${counts[-1]} |"
    done
    if [[ ${#counts[@]} -eq 2 ]]; then
        row+=" $(awk -v a="${counts[0]}" -v b="${counts[1]}" 'BEGIN { printf "%+.1f %%", (b - a) / a * 100 }') |"
    fi
    echo "$row"
done
