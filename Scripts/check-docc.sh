#!/usr/bin/env bash
# Builds the DocC documentation of every product (SlotScheduler, SlotSimulation, SlotSchedulerOCPP,
# SlotSchedulerJournal, SlotSchedulerPostgres, SlotSchedulerObservability) with the toolchain's
# own tools, warnings as errors.
# No swift-docc-plugin, so an importer of SlotScheduler resolves no package for it
# (Scripts/check-empty-graph.sh).
#
#   SWIFT_BUILD_FLAGS="--traits Postgres,Observability" Scripts/check-docc.sh
#   SCRATCH_PATH=.build-docc SWIFT_BUILD_FLAGS="--traits Postgres,Observability" Scripts/check-docc.sh
#
# 1. `swift build --build-tests` with SWIFT_BUILD_FLAGS in SCRATCH_PATH (default .build): it
#    compiles nothing when that build is current. Like any SwiftPM command it waits while another
#    one holds that folder. SKIP_BUILD=1 (CI, whose build is current) skips it: CI runs this
#    beside the tests, and a build planned anew there compiled the package's modules again
#    (82 s in docs/performance/ci/2026-11-29-1400-858cbc0.md).
# 2. swift-symbolgraph-extract on each module's .swiftmodule in the build's Modules folder, with
#    the search paths and C module maps that compiled it (read from the build's llbuild manifest).
# 3. docc convert of each module's catalog (Sources/<module>/Documentation.docc) with its symbol
#    graph, --warnings-as-errors: any warning (a broken ``Symbol`` or <doc:Article> link, an
#    undocumented parameter of a documented function, ...) fails the script.
#
# SlotSchedulerPostgres holds its error type only without the Postgres trait, and
# SlotSchedulerObservability nothing without its trait, so their catalogs can only be checked
# with both traits on: the script fails, saying so, when a module has no public symbols.
# The archives (not transformed for static hosting: a third of the files) are left in
# SCRATCH_PATH/docc/<module>.doccarchive; `docc preview Sources/<module>/Documentation.docc
# --additional-symbol-graph-dir SCRATCH_PATH/docc/symbol-graphs/<module>` serves the pages.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/lib/swift-env.sh # the environment of the other builds of this folder
SCRATCH=${SCRATCH_PATH:-.build}
read -r -a FLAGS <<<"${SWIFT_BUILD_FLAGS:-}"
MODULES=(SlotScheduler SlotSimulation SlotSchedulerJournal SlotSchedulerPostgres SlotSchedulerObservability SlotSchedulerOCPP)
SWIFT_BIN=$(dirname "$(command -v swift)")
DOCC=${DOCC:-$(command -v docc || echo "$SWIFT_BIN/docc")}
EXTRACT=$SWIFT_BIN/swift-symbolgraph-extract
OUT=$SCRATCH/docc
started=$SECONDS

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    echo "== swift build --build-tests --scratch-path $SCRATCH ${FLAGS[*]}"
    swift_same_env build --build-tests --scratch-path "$SCRATCH" "${FLAGS[@]}"
fi
BIN=$(swift_same_env build --build-tests --scratch-path "$SCRATCH" "${FLAGS[@]}" --show-bin-path)
MANIFEST=$SCRATCH/$(basename "$BIN").yaml
echo "   build: $((SECONDS - started)) s"

# docc replaces an archive it writes; symbol graphs and logs of an earlier run must go.
rm -rf "$OUT/symbol-graphs" "$OUT"/*.log
mkdir -p "$OUT"

# The arguments swiftc compiled `module` with that locate its imports: -I, -target,
# -module-cache-path, and the -Xcc module maps and include paths of the C targets; one a line.
import_arguments() {
    python3 - "$MANIFEST" "$1" <<'PY'
import json, sys
manifest, module = sys.argv[1], sys.argv[2]
command = None
with open(manifest) as f:
    for line in f:
        line = line.strip()
        if line.startswith('"C.' + module + '-') and line.endswith('.module":'):
            command = line
        elif command and line.startswith("args: "):
            args = json.loads(line[len("args: "):])
            break
    else:
        sys.exit("error: no compile command for module %s in %s" % (module, manifest))
keep_with_value = {"-I", "-F", "-target", "-sdk", "-resource-dir", "-module-cache-path", "-Xcc"}
i = 0
while i < len(args):
    if args[i] in keep_with_value and i + 1 < len(args):
        print(args[i]); print(args[i + 1]); i += 2
    else:
        i += 1
PY
}

# Extracts `module`'s symbol graph and converts its catalog; its output goes to OUT/module.log.
# Fails on any warning or error.
check_module() {
    local module=$1 began=$SECONDS
    local graphs=$OUT/symbol-graphs/$module
    mkdir -p "$graphs"
    local args
    mapfile -t args < <(import_arguments "$module")
    if [ "${#args[@]}" -eq 0 ]; then
        echo "error: no compile command for $module in $MANIFEST"
        return 1
    fi
    "$EXTRACT" -module-name "$module" "${args[@]}" -minimum-access-level public \
        -emit-extension-block-symbols -output-dir "$graphs" || return 1
    # The number of symbols, and whether the module declares PostgresBookingService: without the
    # Postgres trait SlotSchedulerPostgres holds its error type only, and its catalog cannot build.
    local symbols store
    read -r symbols store < <(python3 -c '
import json, sys
symbols = json.load(open(sys.argv[1]))["symbols"]
print(len(symbols), any(s["pathComponents"] == ["PostgresBookingService"] for s in symbols))' \
        "$graphs/$module.symbols.json")
    if [ "$symbols" -eq 0 ]; then
        echo "error: $module has no public symbols in this build: build it with the Postgres and" \
            "Observability traits (SWIFT_BUILD_FLAGS=\"--traits Postgres,Observability\")"
        return 1
    fi
    if [ "$module" = SlotSchedulerPostgres ] && [ "$store" != True ]; then
        echo "error: SlotSchedulerPostgres has no PostgresBookingService in this build: build it" \
            "with the Postgres trait (SWIFT_BUILD_FLAGS=\"--traits Postgres\")"
        return 1
    fi
    local extracted=$((SECONDS - began)) status=0 log=$OUT/$module.docc.log
    "$DOCC" convert "Sources/$module/Documentation.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.slotscheduler.$module" \
        --warnings-as-errors --no-transform-for-static-hosting --output-path "$OUT/$module.doccarchive" \
        >"$log" 2>&1 || status=$?
    echo "$module: $symbols public symbols, extracted in $extracted s, converted in" \
        "$((SECONDS - began - extracted)) s"
    # A warning fails the check even if docc's exit status did not say so.
    if [ "$status" -ne 0 ] || grep -q -E '(warning|error):' "$log"; then
        cat "$log"
        return 1
    fi
}

# The modules side by side: each is mostly waiting for the disk.
pids=()
for module in "${MODULES[@]}"; do
    check_module "$module" >"$OUT/$module.log" 2>&1 &
    pids+=($!)
done
failed=()
for i in "${!MODULES[@]}"; do
    module=${MODULES[$i]}
    status=0
    wait "${pids[$i]}" || status=$?
    echo "== $module"
    cat "$OUT/$module.log"
    [ "$status" -eq 0 ] || failed+=("$module")
done

echo "DocC: ${#MODULES[@]} catalogs in $((SECONDS - started)) s; archives in $OUT"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "error: DocC warnings or errors in: ${failed[*]}" >&2
    exit 1
fi
