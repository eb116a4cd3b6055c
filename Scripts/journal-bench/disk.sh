#!/usr/bin/env bash
# The disk under the journal benchmark, measured without the store (sync-latency.c): one durable
# append at a time, with several in flight, by method, and with a CPU kept busy meanwhile.
#
#   Scripts/journal-bench/disk.sh            # 3 s a line, in .build/journal-bench-disk
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR="$ROOT/.build/journal-bench-disk"
mkdir -p "$DIR"
cc -O2 -pthread -o "$DIR/sync-latency" "$ROOT/Scripts/journal-bench/sync-latency.c"
S=${BENCH_SECONDS:-3}
echo "$(uname -r), $(nproc) CPUs, $(df -P "$DIR" | awk 'NR == 2 { print $1 }'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for method in fdatasync dsync direct direct-fdatasync; do
    for threads in 1 2 4 8; do "$DIR/sync-latency" "$DIR" "$method" "$threads" "$S"; done
done
"$DIR/sync-latency" "$DIR" fdatasync 1 "$S" spin
"$DIR/sync-latency" "$DIR" fdatasync 2 "$S" spin
