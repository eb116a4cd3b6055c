#!/usr/bin/env bash
# Runs the benchmark set and writes what it measured, with where and when, under docs/performance/:
#
#   Scripts/report-performance.sh [--filter REGEX]...
#
#   --filter REGEX  benchmarks to run (the plugin's --filter; repeatable). Default: the throughput
#                   rows and the paired ratios, 'Floor.*' 'Ledger.attempt.*' 'Scheduler.attempt.*'
#                   'Paired.*' (a few minutes after the build; 9 minutes at load average 10).
#   --index-only    run nothing; rewrite README.md and latest.md from the dated files there are
#                   (after adding or removing a file by hand)
#
# Writes docs/performance/YYYY-MM-DD-HHMM-<commit>.md (UTC, the run's start): the machine (nproc,
# CPU, memory, OS, swift), the load average before and after, the commit (and any uncommitted
# change under Sources/, Benchmarks/ or Package.swift, since the benchmarks build the working
# tree), the exact command, and every figure the benchmarks printed, as tables, with the plugin's
# own output at the end. Then rewrites docs/performance/README.md (the workload, how to read the
# figures, the newest run's tables, an index of the dated runs, newest first, and of the history
# files) and docs/performance/latest.md (the newest run's tables alone).
#
# It writes no other file, and replaces only files it wrote itself: a dated file that exists is
# left alone (the run fails), and README.md or latest.md must carry this script's marker line.
# Run it on a machine with as little else running as possible; the load it records says how
# much else ran. Compare ratios within a run (the Paired rows), not rates across runs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
outdir=docs/performance
marker='<!-- Written by Scripts/report-performance.sh; edits here are lost at its next run. -->'

filters=()
index_only=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --filter)
            [[ $# -ge 2 ]] || { echo "error: --filter needs a regex" >&2; exit 64; }
            filters+=("$2")
            shift 2
            ;;
        --index-only)
            index_only=1
            shift
            ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d'
            exit 0
            ;;
        *)
            echo "error: unknown argument '$1' (see --help)" >&2
            exit 64
            ;;
    esac
done
custom=1
if [[ ${#filters[@]} -eq 0 ]]; then
    custom=0
    filters=('Floor.*' 'Ledger.attempt.*' 'Scheduler.attempt.*' 'Paired.*')
fi

for generated in "$outdir/README.md" "$outdir/latest.md"; do
    if [[ -e "$generated" ]] && ! grep -qxF "$marker" "$generated"; then
        echo "error: $generated was not written by this script; not replacing it" >&2
        exit 73
    fi
done
command -v python3 >/dev/null || { echo "error: python3 is needed to write the tables" >&2; exit 69; }

if [[ $index_only -eq 0 ]]; then

commit=$(git rev-parse --short=7 HEAD)
commit_full=$(git rev-parse HEAD)
commit_subject=$(git log -1 --format=%s HEAD)
dirty=$(git status --porcelain -- Sources Benchmarks Package.swift Package.resolved)

plugin=(swift package --package-path Benchmarks benchmark --target SchedulerBenchmarks)
for f in "${filters[@]}"; do plugin+=(--filter "$f"); done
plugin+=(--format markdown --no-progress)
invocation="Scripts/report-performance.sh"
if [[ $custom -eq 1 ]]; then
    for f in "${filters[@]}"; do invocation+=" --filter '$f'"; done
fi
plugin_text=""
for word in "${plugin[@]}"; do
    if [[ "$word" =~ ^[A-Za-z0-9_./=-]+$ ]]; then plugin_text+=" $word"; else plugin_text+=" '$word'"; fi
done
plugin_text=${plugin_text# }

work=$(mktemp -d "${TMPDIR:-/tmp}/report-performance.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Build first, so that the measured run does not compile and the load before is the run's.
echo "== building the benchmarks (swift package --package-path Benchmarks benchmark list)" >&2
if ! swift package --package-path Benchmarks benchmark list >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log" >&2
    echo "error: the benchmarks did not build" >&2
    exit 1
fi

stamp=$(date -u +%Y-%m-%d-%H%M)
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
outfile="$outdir/$stamp-$commit.md"
if [[ -e "$outfile" ]]; then
    echo "error: $outfile exists; wait a minute and run again" >&2
    exit 73
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== running: $plugin_text" >&2
status=0
"${plugin[@]}" >"$work/run.md" 2>"$work/run.err" || status=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
finished=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
if [[ $status -ne 0 ]]; then
    tail -40 "$work/run.md" "$work/run.err" >&2
    echo "error: the benchmark run failed ($status); nothing written" >&2
    exit 1
fi

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
memory=$(free -h 2>/dev/null | awk '/^Mem:/ {print $2}')
os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")
swift_version=$(swift --version 2>/dev/null | head -1)

mkdir -p "$outdir"
export RP_OUTDIR="$outdir" RP_OUTFILE="$outfile" RP_MARKER="$marker" RP_COMMIT="$commit" \
    RP_COMMIT_FULL="$commit_full" RP_SUBJECT="$commit_subject" RP_DIRTY="$dirty" \
    RP_INVOCATION="$invocation" RP_PLUGIN="$plugin_text" RP_STARTED="$started" RP_FINISHED="$finished" \
    RP_LOAD_BEFORE="$load_before" RP_LOAD_AFTER="$load_after" RP_NPROC="$(nproc)" RP_CPU="${cpu:-unknown}" \
    RP_MEMORY="${memory:-unknown}" RP_OS="${os:-unknown} ($(uname -sr))" RP_SWIFT="$swift_version" \
    RP_RAW="$work/run.md"
python3 - <<'PY'
import json, os, re, sys

env = os.environ
marker = env["RP_MARKER"]
raw = open(env["RP_RAW"], encoding="utf-8").read()

# The plugin's markdown: "### <benchmark>", then a table whose rows are
# | <metric> (<unit>) | p0 | p25 | p50 | p75 | p90 | p99 | p100 | Samples |
# For a metric that prefers larger values the plugin turns the percentiles round (p0 is the
# largest), so the tables below say lowest, median and highest instead.
results = {}   # benchmark -> {metric: {"p50":…, "low":…, "high":…, "n":…}}
order = []
current = None
def number(text):
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        return None
for line in raw.splitlines():
    if line.startswith("### "):
        current = line[4:].strip()
        if current not in results:
            results[current] = {}
            order.append(current)
        continue
    if current is None or not line.startswith("|"):
        continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 9 or cells[0] in ("Metric",) or set(cells[0]) <= set("-: "):
        continue
    values = [number(c) for c in cells[1:]]
    if any(v is None for v in values):
        continue
    p0, p25, p50, p75, p90, p99, p100, n = values
    # A rate the plugin shows in thousands or millions says so at the end: "k attempts/CPU s (K)".
    name = cells[0].removesuffix("*").strip()
    scale = re.search(r" \(([KMGT])\)$", name)
    if scale:
        factor = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[scale.group(1)]
        name = name[:scale.start()]
        p0, p25, p50, p75, p90, p99, p100 = (v * factor for v in (p0, p25, p50, p75, p90, p99, p100))
    results[current][name] = {"p50": p50, "low": min(p0, p100), "high": max(p0, p100),
                                  "q1": min(p25, p75), "q3": max(p25, p75), "n": int(n)}

if not results:
    sys.exit("error: no benchmark results in the plugin's output; nothing written")

def metric(bench, prefix):
    for name, value in results[bench].items():
        if name.startswith(prefix):
            return value
    return None

def rate(v):  # k attempts/s -> M/s, as the README has always shown them
    m = v / 1000
    return f"{m:.2f}" if m < 10 else f"{m:.1f}"

# The targets of the paired ratios (issue 12), as the README has stated them.
targets = {
    "Paired: Scheduler.attempt ÷ Ledger.attempt, 1 thread": 0.8,
    "Paired: Scheduler.attempt, 2 threads ÷ 1 thread": 1.5,
    "Paired: Scheduler.attempt, batches of 1024, 2 threads ÷ 1 thread": 1.8,
    "Paired: Ledger.attempt, batches of 1024 ÷ Floor, 1 thread": 0.5,
}

throughput, paired, other = [], [], []
for bench in order:
    wall, cpu = metric(bench, "k attempts/s"), metric(bench, "k attempts/CPU s")
    ratio = metric(bench, "ratio ×100")
    if ratio is not None:
        paired.append((bench, ratio))
    elif wall is not None:
        throughput.append((bench, wall, cpu))
    else:
        for name, value in results[bench].items():
            other.append((bench, name, value))

def plain(v):  # 58000000.0 -> 58,000,000; 1.5 -> 1.5
    return f"{v:,.0f}" if v == int(v) else f"{v:,g}"

def tables(level):
    h = "#" * level
    out = []
    if throughput:
        out += [f"{h} Throughput", "",
                "Millions of attempts per wall-clock second and per second of CPU time the process "
                "used (all its threads), p50 of the iterations; the range is the lowest and highest "
                "iteration of wall-clock rate.", "",
                "| benchmark | M/s wall (p50) | M/s wall, lowest-highest | M/s CPU (p50) | iterations |",
                "|---|---|---|---|---|"]
        for bench, wall, cpu in throughput:
            out.append(f"| `{bench}` | {rate(wall['p50'])} | {rate(wall['low'])}-{rate(wall['high'])} | "
                       f"{rate(cpu['p50']) if cpu else ''} | {wall['n']} |")
        out.append("")
    if paired:
        out += [f"{h} Paired ratios", "",
                "Each iteration makes the same next 1 M attempts with both sides, one right after "
                "the other, and records the first side's throughput over the second's; p50, "
                "quartiles and extremes of the iterations.", "",
                "| paired ratio | target | p50 | p25-p75 | lowest-highest | iterations | p50 meets the target |",
                "|---|---|---|---|---|---|---|"]
        for bench, r in paired:
            t = targets.get(bench)
            meets = "" if t is None else ("yes" if r["p50"] / 100 >= t else "no")
            out.append(f"| `{bench.removeprefix('Paired: ')}` | {'' if t is None else f'≥ {t}'} | "
                       f"{r['p50'] / 100:.2f} | {r['q1'] / 100:.2f}-{r['q3'] / 100:.2f} | "
                       f"{r['low'] / 100:.2f}-{r['high'] / 100:.2f} | {r['n']} | {meets} |")
        out.append("")
    if other:
        out += [f"{h} Other metrics", "", "| benchmark | metric | p50 | lowest-highest | samples |",
                "|---|---|---|---|---|"]
        for bench, name, v in other:
            out.append(f"| `{bench}` | {name} | {plain(v['p50'])} | {plain(v['low'])} to {plain(v['high'])} | {v['n']} |")
        out.append("")
    return out

name = os.path.basename(env["RP_OUTFILE"])
summary = {"commit": env["RP_COMMIT"], "started": env["RP_STARTED"],
           "load_before": env["RP_LOAD_BEFORE"], "load_after": env["RP_LOAD_AFTER"],
           "paired": {b.removeprefix("Paired: "): r["p50"] / 100 for b, r in paired}}
dirty = env["RP_DIRTY"].rstrip()
doc = [f"# Benchmarks of {env['RP_COMMIT']}, {env['RP_STARTED']}", "",
       f"<!-- report-performance summary: {json.dumps(summary, ensure_ascii=False)} -->", "",
       "Written by `Scripts/report-performance.sh`; the workload and how to read these figures are in "
       "[README.md](README.md).", "",
       "| | |", "|---|---|",
       f"| commit | `{env['RP_COMMIT_FULL']}` ({env['RP_SUBJECT'][:72].replace('|', '/')}) |",
       f"| working tree | {'as committed' if not dirty else 'with uncommitted changes (listed below)'} |",
       f"| command | `{env['RP_INVOCATION']}` |",
       f"| benchmark command it ran | `{env['RP_PLUGIN']}` |",
       f"| run | {env['RP_STARTED']} to {env['RP_FINISHED']} |",
       f"| load average (1, 5, 15 min) before | {env['RP_LOAD_BEFORE']} |",
       f"| load average (1, 5, 15 min) after | {env['RP_LOAD_AFTER']} |",
       f"| processors (nproc) | {env['RP_NPROC']} |",
       f"| CPU | {env['RP_CPU']} |",
       f"| memory | {env['RP_MEMORY']} |",
       f"| OS | {env['RP_OS']} |",
       f"| swift | {env['RP_SWIFT']} |", ""]
if dirty:
    doc += ["Uncommitted changes the benchmarks were built with (`git status --porcelain`):", "",
            "```", dirty, "```", ""]
doc += tables(2)
doc += ["## The plugin's output", "", "As `--format markdown` printed it (percentiles of the iterations; "
        "for a rate, p0 is the highest).", ""]
body = raw[raw.find("## "):] if "## " in raw else raw
body = "\n".join("#" + l if l.startswith("## ") or l.startswith("### ") else l for l in body.splitlines())
doc += [body.rstrip(), ""]
open(env["RP_OUTFILE"], "w", encoding="utf-8").write("\n".join(doc))

print(env["RP_OUTFILE"])
PY
fi

# The index and latest.md, from the dated files on disk.
RP_OUTDIR="$outdir" RP_MARKER="$marker" python3 - <<'PY'
import json, os, re, sys

env = os.environ
marker, outdir = env["RP_MARKER"], env["RP_OUTDIR"]
dated = sorted((f for f in os.listdir(outdir) if re.fullmatch(r"\d{4}-\d{2}-\d{2}-\d{4}-[0-9a-f]+\.md", f)),
               reverse=True)
if not dated:
    sys.exit(f"error: no dated runs in {outdir}")

def read(f):
    return open(os.path.join(outdir, f), encoding="utf-8").read()

def summary(text):
    m = re.search(r"<!-- report-performance summary: (.*) -->", text)
    return json.loads(m.group(1)) if m else None

def row(text, label):
    m = re.search(r"^\| " + re.escape(label) + r" \| (.*) \|$", text, re.M)
    return m.group(1) if m else "?"

def tables(text, level):
    """The dated file's tables (its sections before the plugin's output), headings at `level`."""
    start = min((i for i in (text.find("\n## Throughput"), text.find("\n## Paired ratios"),
                             text.find("\n## Other metrics")) if i >= 0), default=-1)
    end = text.find("\n## The plugin's output")
    if start < 0:
        return []
    part = text[start + 1:end if end >= 0 else len(text)].rstrip("\n").split("\n")
    return [("#" * level + l[2:]) if l.startswith("## ") else l for l in part] + [""]

short = {"Scheduler.attempt ÷ Ledger.attempt, 1 thread": "Sched ÷ Ledger",
         "Scheduler.attempt, 2 threads ÷ 1 thread": "2 ÷ 1 threads",
         "Scheduler.attempt, batches of 1024, 2 threads ÷ 1 thread": "batches 2 ÷ 1 threads",
         "Ledger.attempt, batches of 1024 ÷ Floor, 1 thread": "Ledger batches ÷ Floor"}
index = ["| run | commit | load before → after | " + " | ".join(short.values()) + " |",
         "|---|---|---|" + "---|" * len(short)]
for f in dated:
    s = summary(read(f))
    if s is None:
        index.append(f"| [{f}]({f}) | | | " + " | " * len(short))
        continue
    cells = [f"{s['paired'][k]:.2f}" if k in s.get("paired", {}) else "" for k in short]
    index.append(f"| [{f[:15]}]({f}) | `{s['commit']}` | {s['load_before'].split()[0]} → "
                 f"{s['load_after'].split()[0]} | " + " | ".join(cells) + " |")
history = sorted(f for f in os.listdir(outdir) if re.fullmatch(r"history-.*\.md", f))
history_lines = []
for f in history:
    first = open(os.path.join(outdir, f), encoding="utf-8").readline().lstrip("# ").strip()
    history_lines.append(f"- [{f}]({f}): {first}")

newest = dated[0]
text = read(newest)
s = summary(text) or {"commit": "?", "started": "?", "load_before": "?", "load_after": "?"}
latest = [marker, "", f"# The newest benchmark run: [{newest}]({newest})", "",
          f"The workload and how to read the figures: [README.md](README.md). Commit `{s['commit']}`, "
          f"{s['started']}, load average {s['load_before'].split()[0]} before and "
          f"{s['load_after'].split()[0]} after, {row(text, 'processors (nproc)')} processors; "
          f"written by {row(text, 'command')}.", ""] + tables(text, 2)
open(os.path.join(outdir, "latest.md"), "w", encoding="utf-8").write("\n".join(latest))
readme = [marker, "", "# Performance", "",
"Every dated file here (`YYYY-MM-DD-HHMM-<commit>.md`) was written by the command it names.",
"Measure again with",
"", "```sh", "Scripts/report-performance.sh", "```", "",
"which builds the benchmarks (`Benchmarks/`, their own package, with",
"[ordo-one/benchmark](https://github.com/ordo-one/benchmark)), runs",
"", "```sh", "swift package --package-path Benchmarks benchmark --target SchedulerBenchmarks \\",
"    --filter 'Floor.*' --filter 'Ledger.attempt.*' --filter 'Scheduler.attempt.*' --filter 'Paired.*' \\",
"    --format markdown --no-progress", "```", "",
"and writes a dated file here (`YYYY-MM-DD-HHMM-<commit>.md`, UTC) with the machine, the load",
"average before and after, the commit and every figure, then this index and [latest.md](latest.md).",
"Commit the new file with the change it measured.", "",
"## The workload", "",
"`Benchmarks/SchedulerBenchmarks/Workload.swift` builds it, seeded (SplitMix64, seed 42), so every",
"run makes the same attempts:", "",
"- 200 stations × 10 sockets (Type 2 and CCS alternating, 22 kW), all in `Europe/London`; 275",
"  days from 2026-01-01, 24 hours a day; the policy allows 16 upcoming bookings per user and ends",
"  at the 275th day (`Policy.Horizon.lastDate`); `now` is the day before the first.",
"- About 1 % of socket-days closed (each socket-day with probability 1/100), applied before the run",
"  as availability changes.",
"- 10 M attempts, each a station, socket, day and hour uniform at random and one of 1 M users",
"  uniform at random: about 30 % of them are refused over the 10 M (taken slots, closed days,",
"  users at the limit). Every rule is checked (time, the DST table, horizon, closures, occupancy,",
"  the user's upcoming limit) and the event journal is on.",
"- Each iteration makes the next 1 M attempts against the same state (a fresh state after the",
"  10 M); a benchmark runs at most 10 iterations, within 60 s (a `Paired` one within 120 s).",
"- A `Scheduler` has 64 shards and 256 stripes and expects 1 M users; two threads split each",
"  iteration's attempts in halves, or, in the `disjoint` rows, take stations and users of their",
"  own parity (no lock or book in common).",
"- `long history` rows: the same attempts folded onto 100 users, each already holding 10,000",
"  ended bookings (`Workload+History.swift`). `Floor` is the least state that decides the same",
"  attempts: a bit per socket-hour and a count per user, no time rules, records or journal",
"  (`Floor.swift`).", "",
"## Reading the figures", "",
"This machine is shared: the speed of a core drifts from one few-second phase to the next, and",
"rows of separate benchmarks run tens of seconds apart. Compare ratios from the `Paired` rows,",
"which time both sides of each iteration within a second of each other, and compare rates only",
"within one run. The `M/s CPU` column (attempts per second of CPU time the process used) is steadier than",
"the wall-clock rate for one-thread paths and blind to scaling. The load average in each file",
"says how much else was running.", "",
"## Runs, newest first", "",
"Paired p50 ratios; the targets are ≥ 0.8, ≥ 1.5, ≥ 1.8 and ≥ 0.5.", ""] + index + [""]
readme += [f"## The newest run: [{newest}]({newest})", ""] + tables(text, 3)
readme += ["## Earlier runs", "",
"Runs from before this script, copied from the README, the DocC articles and docs/ with the",
"commands they name; their format differs and their machine was this one under other loads.", ""]
readme += history_lines + [""]
open(os.path.join(outdir, "README.md"), "w", encoding="utf-8").write("\n".join(readme))
PY
