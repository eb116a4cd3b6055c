#!/usr/bin/env bash
# Builds the DocC documentation of every product (SlotScheduler, SlotSimulation,
# SlotSchedulerJournal, SlotSchedulerPostgres) with the toolchain's own tools, warnings as errors:
# no swift-docc-plugin, so an importer of SlotScheduler resolves no package for it
# (Scripts/check-empty-graph.sh).
#
#   SWIFT_BUILD_FLAGS="--traits Postgres" Scripts/check-docc.sh
#   SCRATCH_PATH=.build-docc SWIFT_BUILD_FLAGS="--traits Postgres" Scripts/check-docc.sh
#
# 1. `swift build` with SWIFT_BUILD_FLAGS in SCRATCH_PATH (default .build): nothing is compiled
#    when that build is current, as after CI's build step with the same flags.
# 2. swift-symbolgraph-extract on each module's .swiftmodule in the build's Modules folder, with
#    the search paths and C module maps that compiled it (read from the build's llbuild manifest).
# 3. docc convert of each module's catalog (Sources/<module>/Documentation.docc) with its symbol
#    graph, --warnings-as-errors: any warning (a broken ``Symbol`` or <doc:Article> link, an
#    undocumented parameter of a documented function, ...) fails the script.
#
# SlotSchedulerPostgres is empty without the Postgres trait, so its catalog can only be checked
# with it: the script fails when that module has no symbols. The archives are left in
# SCRATCH_PATH/docc/<module>.doccarchive (`docc preview` can serve one).
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH_PATH:-.build}
read -r -a FLAGS <<<"${SWIFT_BUILD_FLAGS:-}"
MODULES=(SlotScheduler SlotSimulation SlotSchedulerJournal SlotSchedulerPostgres)
SWIFT_BIN=$(dirname "$(command -v swift)")
DOCC=${DOCC:-$(command -v docc || echo "$SWIFT_BIN/docc")}
EXTRACT=$SWIFT_BIN/swift-symbolgraph-extract
OUT=$SCRATCH/docc
started=$SECONDS

echo "== swift build --scratch-path $SCRATCH ${FLAGS[*]}"
swift build --scratch-path "$SCRATCH" "${FLAGS[@]}"
BIN=$(swift build --scratch-path "$SCRATCH" "${FLAGS[@]}" --show-bin-path)
MANIFEST=$SCRATCH/$(basename "$BIN").yaml

rm -rf "$OUT"
mkdir -p "$OUT"
failed=()
for module in "${MODULES[@]}"; do
    graphs=$OUT/symbol-graphs/$module
    mkdir -p "$graphs"
    # The arguments swiftc compiled the module with that locate its imports: -I, -target,
    # -module-cache-path, and the -Xcc module maps and include paths of the C targets.
    mapfile -t args < <(python3 - "$MANIFEST" "$module" <<'PY'
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
    )
    if [ "${#args[@]}" -eq 0 ]; then
        echo "error: no compile command for $module in $MANIFEST" >&2
        exit 1
    fi
    echo "== swift-symbolgraph-extract $module"
    "$EXTRACT" -module-name "$module" "${args[@]}" -minimum-access-level public -emit-extension-block-symbols -output-dir "$graphs"
    symbols=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["symbols"]))' \
        "$graphs/$module.symbols.json")
    if [ "$symbols" -eq 0 ]; then
        echo "error: $module has no public symbols in this build (SlotSchedulerPostgres needs" \
            "SWIFT_BUILD_FLAGS=\"--traits Postgres\")" >&2
        failed+=("$module")
        continue
    fi
    echo "== docc convert Sources/$module/Documentation.docc ($symbols symbols)"
    log=$OUT/$module.log
    status=0
    "$DOCC" convert "Sources/$module/Documentation.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.slotscheduler.$module" \
        --warnings-as-errors --output-path "$OUT/$module.doccarchive" >"$log" 2>&1 || status=$?
    # Warnings count as failures even if docc's exit status did not say so.
    if [ "$status" -ne 0 ] || grep -q -E '(warning|error):' "$log"; then
        cat "$log" >&2
        failed+=("$module")
    fi
done

echo "DocC: ${#MODULES[@]} catalogs in $((SECONDS - started)) s; archives in $OUT"
if [ "${#failed[@]}" -ne 0 ]; then
    echo "error: DocC warnings or errors in: ${failed[*]}" >&2
    exit 1
fi
