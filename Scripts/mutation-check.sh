#!/usr/bin/env bash
# Proves the property suite can fail: applies deliberate bugs to Sources/SlotScheduler (and the
# journal store) one at a time, runs `swift test --filter PropertyTests` (or the mutant's own
# filter, `mutants.py --filter NAME`) on each, and reports caught/missed as markdown.
#
# Each mutant is a literal text replacement done by Scripts/mutants/mutants.py, which fails loudly
# if the target text is not found exactly once. The original file is copied to a temporary
# backup first and restored right after the mutant is built (the tests then run on the built
# binary), and a trap restores it if the run is interrupted.
#
# Usage: Scripts/mutation-check.sh [mutant-name ...]     (default: all)
#        MUTATION_SKIP_BASELINE=1 to skip the baseline tests (see below)
# Output: the table on stdout (also written to .build/mutation-report.md); exit 1 if any
# mutant survives or cannot be applied/built.
set -uo pipefail
cd "$(dirname "$0")/.."

MUTANTS=Scripts/mutants/mutants.py
REPORT=.build/mutation-report.md
LOGDIR=.build/mutation-logs
mkdir -p "$LOGDIR"

BACKUP=""
TARGET=""
restore() {
    if [[ -n "$BACKUP" && -f "$BACKUP" ]]; then
        cp "$BACKUP" "$TARGET"
        rm -f "$BACKUP"
        BACKUP=""
    fi
}
trap 'restore; exit 130' INT TERM
trap 'restore' EXIT

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
    mapfile -t names < <(python3 "$MUTANTS" --list)
fi

# Others may be editing other targets of this checkout: wait (up to ~10 min) until the
# unmutated sources build, so a broken neighbour is not mistaken for a mutant that does not compile.
wait_for_clean_build() {
    for _ in $(seq 1 20); do
        swift build --build-tests >"$LOGDIR/clean-build.log" 2>&1 && return 0
        echo "   (clean build fails, waiting 30 s; see $LOGDIR/clean-build.log)" >&2
        sleep 30
    done
    return 1
}

echo "Baseline: building and running the property suite on the unmutated sources..." >&2
if ! wait_for_clean_build; then
    echo "baseline build failed; see $LOGDIR/clean-build.log" >&2
    exit 1
fi
# MUTATION_SKIP_BASELINE=1 skips the baseline tests (about 5 minutes on a busy 2-core machine), for
# a run split in parts on one commit whose baseline already passed; the clean build still runs.
if [[ "${MUTATION_SKIP_BASELINE:-0}" == 1 ]]; then
    echo "   baseline tests skipped (MUTATION_SKIP_BASELINE=1)" >&2
elif ! swift test --skip-build --filter 'PropertyTests|JournalTests' >"$LOGDIR/baseline-test.log" 2>&1; then
    echo "baseline property suite fails; fix that first (see $LOGDIR/baseline-test.log)" >&2
    exit 1
fi

rows=()
survivors=0
for name in "${names[@]}"; do
    TARGET=$(python3 "$MUTANTS" --target "$name") || { rows+=("| \`$name\` | ? | unknown mutant | ✗ |"); survivors=$((survivors + 1)); continue; }
    description=$(python3 "$MUTANTS" --describe "$name")
    filter=$(python3 "$MUTANTS" --filter "$name")
    if ! wait_for_clean_build; then
        rows+=("| \`$name\` | $description | clean sources do not build; not tested | ✗ |")
        survivors=$((survivors + 1))
        continue
    fi
    BACKUP=$(mktemp "${TMPDIR:-/tmp}/mutant-backup.XXXXXX")
    cp "$TARGET" "$BACKUP"
    echo "== $name: $description" >&2
    if ! python3 "$MUTANTS" --apply "$name"; then
        restore
        rows+=("| \`$name\` | $description | patch did not apply | ✗ |")
        survivors=$((survivors + 1))
        continue
    fi
    start=$(date +%s)
    if ! swift build --build-tests >"$LOGDIR/$name-build.log" 2>&1; then
        restore
        rows+=("| \`$name\` | $description | mutant does not compile | ✗ |")
        survivors=$((survivors + 1))
        continue
    fi
    restore  # the mutant is in the built binary; the source is clean again
    if swift test --skip-build --filter "$filter" >"$LOGDIR/$name-test.log" 2>&1; then
        verdict="**missed**"
        mark="✗"
        survivors=$((survivors + 1))
    elif grep -q 'Program crashed' "$LOGDIR/$name-test.log"; then
        # A crash is not a catch: it can come from elsewhere (on 2026-11-26 the check-in tests
        # crashed on the clean sources too). Check the clean sources, rerun; see its test log.
        verdict="test process crashed, not counted as caught (see $LOGDIR/$name-test.log)"
        mark="✗"
        survivors=$((survivors + 1))
    else
        failing=$(grep -oE 'Test (I[0-9]+_[A-Za-z_]+|[A-Za-z_]+)\(' "$LOGDIR/$name-test.log" | grep -B0 '' \
            | sed -E 's/^Test //; s/\($//' | sort -u | tr '\n' ' ')
        failed_tests=$(grep -E '✘ Test [A-Za-z0-9_]+\(' "$LOGDIR/$name-test.log" \
            | sed -E 's/.*✘ Test ([A-Za-z0-9_]+)\(.*/\1/' | sort -u | paste -sd, - | sed 's/,/, /g')
        if [[ -z "$failed_tests" ]]; then
            failed_tests=$(grep -oE '✘ Test "[^"]+" (recorded|failed)' "$LOGDIR/$name-test.log" \
                | sed -E 's/✘ Test "([^"]+)".*/"\1"/' | sort -u | paste -sd';' - | sed 's/;/; /g')
        fi
        verdict="caught by ${failed_tests:-${failing:-a failing test}}"
        mark="✓"
    fi
    end=$(date +%s)
    echo "   $verdict ($((end - start)) s)" >&2
    rows+=("| \`$name\` | $description | $verdict | $mark |")
done

# Rebuild the clean sources so the checkout is left as it was.
swift build --build-tests >"$LOGDIR/final-build.log" 2>&1 || echo "warning: final clean rebuild failed" >&2

{
    echo "| mutant | bug | result | caught |"
    echo "|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} | tee "$REPORT"

if [[ $survivors -gt 0 ]]; then
    echo "$survivors mutant(s) survived or could not be tested" >&2
    exit 1
fi
echo "all ${#names[@]} mutants caught" >&2
