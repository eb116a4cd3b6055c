#!/usr/bin/env bash
# schedule-sim never replaces a file it did not write: a directory, a fifo, a character device
# (a copy of /dev/null when mknod is allowed), a link to one, a missing folder, a file of the
# user's, two outputs naming one file and an output over the input are refused with exit 73
# before the run; a run's own outputs and an empty file are replaced by the next run; and an
# interrupted run leaves no *.partial file. Usage: Scripts/cli-output-files.sh [BIN]   (run-scenarios.sh calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/schedule-sim.sh
BIN=${1:-$(schedule_sim_binary)}
S=Scenarios/rush-hour.json
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failed=0

expect73() {
    local what="$1"
    shift
    local rc=0
    "$BIN" run "$S" --quiet "$@" >/dev/null 2>"$WORK/err" || rc=$?
    if [[ $rc -ne 73 ]] || ! grep -q "error: cannot write" "$WORK/err"; then
        echo "FAILED: $what: exit $rc, $(cat "$WORK/err")" >&2
        failed=1
    else
        echo "ok: $what refused: $(cat "$WORK/err")"
    fi
}

mkdir "$WORK/dir" && touch "$WORK/dir/keep"
expect73 "a directory as --history" --history "$WORK/dir"
expect73 "a directory as --report" --report "$WORK/dir"
[[ -f "$WORK/dir/keep" ]] || { echo "FAILED: the directory lost its file" >&2; failed=1; }
mkfifo "$WORK/fifo"
expect73 "a fifo" --report "$WORK/fifo"
[[ -p "$WORK/fifo" ]] || { echo "FAILED: the fifo was replaced" >&2; failed=1; }
if mknod "$WORK/null" c 1 3 2>/dev/null; then
    expect73 "a character device" --history "$WORK/null"
    [[ -c "$WORK/null" ]] || { echo "FAILED: the device node was replaced" >&2; failed=1; }
fi
ln -s /dev/null "$WORK/link"
expect73 "a link to /dev/null" --report "$WORK/link"
[[ -L "$WORK/link" ]] || { echo "FAILED: the link was replaced" >&2; failed=1; }
expect73 "a missing folder" --history "$WORK/none/h.jsonl"
expect73 "two outputs naming one file" --history "$WORK/same" --report "$WORK/same"
cp "$S" "$WORK/input.json"
rc=0
"$BIN" run "$WORK/input.json" --quiet --report "$WORK/input.json" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 73 ]] && cmp -s "$S" "$WORK/input.json" || { echo "FAILED: report over the input: exit $rc" >&2; failed=1; }

# A file schedule-sim did not write is refused and kept; its own outputs, and an empty file (what
# mktemp leaves), are replaced by the next run.
printf 'my notes\n' >"$WORK/notes.txt"
for option in --report --history --html; do
    expect73 "a file of the user's as $option" "$option" "$WORK/notes.txt"
done
[[ "$(cat "$WORK/notes.txt")" == "my notes" ]] || { echo "FAILED: the user's file was changed" >&2; failed=1; }
: >"$WORK/empty.json"
for round in 1 2; do
    rc=0
    "$BIN" run "$S" --quiet --report "$WORK/r.json" --history "$WORK/h.jsonl" --html "$WORK/p.html" >/dev/null \
        2>"$WORK/err" || rc=$?
    [[ $rc -eq 0 ]] || { echo "FAILED: run $round over its own outputs: exit $rc, $(cat "$WORK/err")" >&2; failed=1; }
done
rc=0
"$BIN" run "$S" --quiet --report "$WORK/empty.json" >/dev/null 2>"$WORK/err" || rc=$?
[[ $rc -eq 0 && -s "$WORK/empty.json" ]] || { echo "FAILED: an empty --report: exit $rc, $(cat "$WORK/err")" >&2; failed=1; }
[[ $failed -eq 0 ]] && echo "ok: a second run replaces its own report, history and page, and an empty file"

# An interrupted run removes its partial history.
"$BIN" run Scenarios/city-wide.json --operations 50000000 --history "$WORK/big.jsonl" --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
    compgen -G "$WORK/big.jsonl.*.partial" >/dev/null && break
    sleep 0.1
done
sleep 1
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [[ $rc -ne 130 ]] || compgen -G "$WORK/*.partial" >/dev/null; then
    echo "FAILED: SIGINT: exit $rc, left: $(ls "$WORK")" >&2
    failed=1
else
    echo "ok: SIGINT exits 130 and removes the partial history"
fi

# verify-target: its page over the record it reads is refused, the record kept.
RECORD="$WORK/record.jsonl"
echo '{"clockStart":1,"clockTolerance":1,"kind":"run","scenario":"teaching-race","shiftDays":0,"target":"t","version":1}' >"$RECORD"
cp "$RECORD" "$WORK/record.copy"
rc=0
"$BIN" verify-target "$RECORD" --scenario Examples/FaultyBackends/race.json \
    --adapter Examples/FaultyBackends/adapter.json --html "$RECORD" >/dev/null 2>"$WORK/err" || rc=$?
if [[ $rc -ne 73 ]] || ! cmp -s "$RECORD" "$WORK/record.copy"; then
    echo "FAILED: verify-target --html over its record: exit $rc, $(cat "$WORK/err")" >&2
    failed=1
else
    echo "ok: verify-target --html over its record refused: $(cat "$WORK/err")"
fi

[[ $failed -eq 0 ]] && echo "output files: all refused or cleaned up as documented"
exit $failed
