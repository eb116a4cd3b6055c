#!/usr/bin/env bash
# CI's mutant planting, run after CI's tests on the build they used: checks that every mutant
# still applies and that the mutation table is the generated one (`mutants.py --check`), then
# plants $MUTANTS_PER_RUN mutants (default 2) chosen by the commit count, each with an
# incremental build of $SCRATCH_PATH (default .build) with $SWIFT_BUILD_FLAGS, and fails if one
# survives, only crashes the tests, does not apply or does not compile. See
# Scripts/mutation-check.sh (--ci) for the details and the other variables.
#
# CI: SWIFT_BUILD_FLAGS="--traits Postgres" Scripts/mutants/plant.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
Scripts/mutation-check.sh --ci "$@"
status=$?
echo "mutant planting: $(($(date +%s) - start)) s in all, exit $status" >&2
exit $status
