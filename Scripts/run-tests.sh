#!/usr/bin/env bash
# Runs the tests of a build that exists, as `swift test --skip-build` does, but without SwiftPM:
# the test bundle, with the Swift Testing arguments given after `--`.
#
#   Scripts/run-tests.sh [swift build flags: --scratch-path P, --traits T, ...] [-- --filter F ...]
#
# Why not `swift test --skip-build`: it rewrites every module's output-file-map.json (the same
# content, a new time), and the next `swift build` of that folder then compiles most of the
# package's modules again (measured: 265 CPU s for SlotScheduler and every module above it, and
# Hummingbird's 104 files). CI's tests, DocC and planted mutants share one build, one after
# another; each mutant's build compiles only what the mutant changed.
#
# TEST_BUNDLE=PATH runs that bundle instead (CI runs a copy, so that planting mutants in the build
# folder cannot change what a running test executes).
set -euo pipefail
cd "$(dirname "$0")/.."
flags=()
while (($#)) && [[ "$1" != -- ]]; do
    flags+=("$1")
    shift
done
(($#)) && shift # the --
if [[ -n "${TEST_BUNDLE:-}" ]]; then
    bundle=$TEST_BUNDLE # a copy (CI's), with journal-crash-child and the resources beside it
else
    bin=$(swift build --build-tests ${flags[@]+"${flags[@]}"} --show-bin-path)
    bundle="$bin/SlotSchedulerPackageTests.xctest"
fi
[[ -x "$bundle" ]] || { echo "error: no test bundle at $bundle: build it first (swift build --build-tests ${flags[*]:-})" >&2; exit 1; }
# Plain text when not on a terminal, as `swift test` writes it (the mutants grep its lines).
[[ -t 1 ]] || export NO_COLOR=1
exec "$bundle" --testing-library swift-testing "$@"
