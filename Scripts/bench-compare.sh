#!/usr/bin/env bash
# Did a change make the benchmarks slower? Runs the same benchmarks of this checkout and of an
# earlier commit in alternating rounds of one sitting, and prints each round's p50 rates and
# their ratios (this checkout / the earlier commit), then the median ratio per benchmark; the same
# for each round's best iteration, which other load on the machine disturbs least.
#
#   Scripts/bench-compare.sh OLD_REV [FILTER...]
#
#   OLD_REV  the commit to compare with (for issue 16: 5fb7044^, before the lifecycle work)
#   FILTER   benchmark name regexes (default: 'Ledger.attempt, 1 thread' and
#            'Scheduler.attempt, 1 thread')
#   ROUNDS   environment: alternating rounds (default 4); each runs every filter on both sides
#   BENCH_COMPARE_DIR  where the earlier commit's worktree is kept between calls
#                      (default: ${TMPDIR:-/tmp}/slot-bench-<OLD_REV's short id>)
#
# Alternation matters on a shared machine: a burst of other load lands on one round of both
# sides, not on all rounds of one side. Both sides must build their own Benchmarks package with
# the same workload; a difference in the workload file is reported before the runs.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    sed -n '2,16p' "$0"
    exit 64
fi
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(git -C "$root" rev-parse --short "$1^{commit}")
shift
filters=("$@")
if [[ ${#filters[@]} -eq 0 ]]; then
    filters=('Ledger.attempt, 1 thread' 'Scheduler.attempt, 1 thread')
fi
rounds=${ROUNDS:-4}
oldtree=${BENCH_COMPARE_DIR:-${TMPDIR:-/tmp}/slot-bench-$old}

if [[ -e "$oldtree" && ! -e "$oldtree/.git" ]]; then
    echo "error: $oldtree exists and is not a worktree; set BENCH_COMPARE_DIR" >&2
    exit 73
fi
if [[ ! -e "$oldtree" ]]; then
    git -C "$root" worktree add --detach "$oldtree" "$old" >/dev/null
fi
if [[ $(git -C "$oldtree" rev-parse --short HEAD) != "$old" ]]; then
    echo "error: $oldtree is not at $old; remove it or set BENCH_COMPARE_DIR" >&2
    exit 73
fi
workload=Benchmarks/SchedulerBenchmarks/Workload.swift
if ! cmp -s "$oldtree/$workload" "$root/$workload"; then
    echo "note: $workload differs between $old and this checkout:"
    diff "$oldtree/$workload" "$root/$workload" | sed 's/^/    /' || true
fi

for tree in "$oldtree" "$root"; do
    echo "building $tree/Benchmarks (release)"
    swift build --package-path "$tree/Benchmarks" -c release >/dev/null
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # tree, side, round, filter index
    local args=(--target SchedulerBenchmarks --format influx --path stdout --no-progress)
    for f in "${filters[@]}"; do args+=(--filter "$f"); done
    swift package --package-path "$1/Benchmarks" benchmark "${args[@]}" >"$out/$2-$3.influx"
}
for ((r = 1; r <= rounds; r++)); do
    echo "round $r of $rounds: $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
    if ((r % 2)); then run "$oldtree" old "$r"; run "$root" new "$r"
    else run "$root" new "$r"; run "$oldtree" old "$r"; fi
done

python3 - "$out" "$rounds" "$old" <<'EOF'
import csv, statistics, sys
out, rounds, old = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def rates(path):
    """{(benchmark, metric, percentile): rate} from an influx export. The rates prefer larger
    values, so percentile 0.0 is a round's best iteration and 50.0 its median."""
    found = {}
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) > 10 and row[9] in ("0.0", "50.0") and row[6] in ("kattempts/s", "kattempts/CPUs"):
                found[(row[8], row[6], row[9])] = float(row[10])
    return found

sides = {s: [rates(f"{out}/{s}-{r}.influx") for r in range(1, rounds + 1)] for s in ("old", "new")}
for key in sorted(sides["old"][0]):
    name, metric, percentile = key
    label = "best iteration" if percentile == "0.0" else "median iteration"
    print(f"\n{name}, {metric}, {label} of each round")
    print(f"| round | {old} | this checkout | ratio |")
    print("|---|---|---|---|")
    ratios = []
    for r in range(rounds):
        o, n = sides["old"][r].get(key), sides["new"][r].get(key)
        if o and n:
            ratios.append(n / o)
            print(f"| {r + 1} | {o:,.0f} | {n:,.0f} | {n / o:.2f}x |")
    if ratios:
        print(f"median ratio {statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x")
EOF
