#!/usr/bin/env bash
# A package that depends on this one for the SlotScheduler product alone (the library backend
# teams import) must resolve no other package. Resolves (and builds) Scripts/empty-graph-consumer,
# prints the packages in its graph besides itself and this one, and fails unless there are none.
#
#   Scripts/check-empty-graph.sh
set -euo pipefail
cd "$(dirname "$0")/.."
CONSUMER=Scripts/empty-graph-consumer

rm -f "$CONSUMER/Package.resolved"
swift package --package-path "$CONSUMER" resolve
OTHERS=$(swift package --package-path "$CONSUMER" show-dependencies --format json | python3 -c '
import json, sys
graph = json.load(sys.stdin)
root = graph["dependencies"]  # this repository, the only direct dependency
seen = set()
def walk(nodes):
    for node in nodes:
        seen.add(node["identity"])
        walk(node["dependencies"])
for node in root:
    walk(node["dependencies"])
print("\n".join(sorted(seen)))
')
PINS=0
if [ -f "$CONSUMER/Package.resolved" ]; then
    PINS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("pins", [])))' "$CONSUMER/Package.resolved")
fi
COUNT=$(printf '%s' "$OTHERS" | grep -c . || true)
echo "consumer of SlotScheduler: $COUNT other packages in its graph, $PINS pins in its Package.resolved"
if [ "$COUNT" -ne 0 ] || [ "$PINS" -ne 0 ]; then
    echo "error: a package depending on SlotScheduler alone resolves: $OTHERS" >&2
    exit 1
fi
# Then it builds, as an importer would. BUILD_CONSUMER=0 (CI) skips that: CI's other builds
# compile SlotScheduler, which has no dependency, and this one took 47 CPU s beside them.
if [[ "${BUILD_CONSUMER:-1}" == 1 ]]; then
    swift build --package-path "$CONSUMER" -debug-info-format none
fi
