# Steps for .ci/run: each step runs under a timeout with its output in a log of its own, is timed,
# and is printed whole (under a lock, so steps that ran side by side do not interleave) when it
# ends. `report` prints every step's wall time, the CPU time of its processes (user + system, as
# /usr/bin/time counts it: a server it started in the background is not counted), and the total
# against the budget.
#
#   step NAME SECONDS COMMAND...     run now, in this shell's lane
#   after NAME...                    wait until those steps ended; fail (status 1) if one failed
#   report                           the table; exit status 1 if any step failed or never ended
#
# A lane is a function started with `&`: its steps run one after another, beside other lanes.
# State lives in $CI_STATE (one folder per step: start, end, status, log).

CI_STATE=$(mktemp -d "${TMPDIR:-/tmp}/slotscheduler-ci.XXXXXX")
CI_START=$(date +%s)
CI_ORDER=()  # the steps in the order .ci/run names them, for the table

# Declares the steps up front, so a step that never started (its lane stopped at a failure, or
# the run was cut short) still has a row in the table.
declare_steps() {
    CI_ORDER+=("$@")
}

_dir() { printf '%s/%s' "$CI_STATE" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_')"; }

step() {
    local name=$1 seconds=$2
    shift 2
    if ((seconds > BUDGET_SECONDS)); then
        echo "ci: step '$name' has a timeout of $seconds s, more than the whole budget ($BUDGET_SECONDS s)" >&2
        exit 2
    fi
    local dir
    dir=$(_dir "$name")
    mkdir -p "$dir"
    date +%s >"$dir/start"
    local status=0
    # --kill-after: a step that ignores SIGTERM is killed 30 s later. Through bash, so a step may
    # be a function of .ci/run's (exported with `export -f`).
    # The CPU column comes from GNU time where the machine has it (Debian's `time`).
    local timer=()
    [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f '%U %S' -o "$dir/cpu")
    "${timer[@]}" timeout --kill-after=30 "$seconds" bash -c '"$@"' "$name" "$@" >"$dir/log" 2>&1 </dev/null || status=$?
    date +%s >"$dir/end"
    echo "$status" >"$dir/status"
    local took=$(($(cat "$dir/end") - $(cat "$dir/start")))
    local verdict="passed"
    ((status == 0)) || verdict="FAILED (exit $status)"
    ((status == 124 || status == 137)) && verdict="TIMED OUT or killed (limit $seconds s)"
    {
        flock 9
        printf '\n=== %s: %s in %d s (started at +%d s) ===\n' "$name" "$verdict" "$took" \
            "$(($(cat "$dir/start") - CI_START))"
        cat "$dir/log"
        printf '=== end of %s ===\n' "$name"
    } 9>"$CI_STATE/print.lock"
    return "$status"
}

# Waits for the named steps (run by other lanes) to end; returns 1 if one did not pass.
after() {
    local name dir
    for name in "$@"; do
        dir=$(_dir "$name")
        until [[ -f "$dir/status" || -f "$CI_STATE/abandoned" ]]; do sleep 1; done
        [[ -f "$dir/status" && "$(cat "$dir/status")" == 0 ]] || return 1
    done
}

# Marks the steps a lane will not run (an earlier step of its failed), so `after` does not wait
# for them forever.
skip() {
    local name dir
    for name in "$@"; do
        dir=$(_dir "$name")
        mkdir -p "$dir"
        [[ -f "$dir/status" ]] || echo skipped >"$dir/status"
    done
}

report() {
    local total=$(($(date +%s) - CI_START)) failed=0 name dir status took start cpu
    printf '\n=== CI steps (wall and CPU seconds; steps of different lanes overlap) ===\n'
    printf '%-62s %7s %6s %6s  %s\n' "step" "start" "wall" "cpu" "result"
    for name in "${CI_ORDER[@]}"; do
        dir=$(_dir "$name")
        status=$(cat "$dir/status" 2>/dev/null || echo "not run")
        start=-
        took=-
        cpu=-
        [[ -s "$dir/cpu" ]] && cpu=$(awk 'END { if (NF == 2) printf "%d", $1 + $2; else print "-" }' "$dir/cpu")
        if [[ -f "$dir/start" ]]; then
            start="+$(($(cat "$dir/start") - CI_START))"
            [[ -f "$dir/end" ]] && took=$(($(cat "$dir/end") - $(cat "$dir/start")))
        fi
        case $status in
            0) status=passed ;;
            124 | 137) status="timed out or killed" failed=1 ;;
            [0-9]*) status="failed (exit $status)" failed=1 ;;
            *) failed=1 ;;
        esac
        printf '%-62s %7s %6s %6s  %s\n' "$name" "$start" "$took" "$cpu" "$status"
    done
    printf '%-62s %7s %6s %6s  %s\n' "total" "" "$total" "" \
        "budget $BUDGET_SECONDS s: $( ((total <= BUDGET_SECONDS)) && echo "within" || echo "OVER BUDGET by $((total - BUDGET_SECONDS)) s")"
    return $failed
}
