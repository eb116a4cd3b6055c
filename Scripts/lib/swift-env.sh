# `swift` in one environment, for the commands that share a build folder, sourced by the scripts
# that run them:
#
#   source Scripts/lib/swift-env.sh
#   swift_same_env build --build-tests ...
#
# SwiftPM plans a build folder anew whenever its environment differs in any variable from the
# last command's, and the new plan compiles whole modules again: in CI the first planted
# mutant's build, run from a script nested two levels below the debug build's (SHLVL differed),
# compiled Hummingbird, SlotScheduler and every module above it, 191 s instead of 10
# (docs/performance/ci/2026-11-29-1935-b3a6289.md). `SHLVL=7 swift build` after a `swift build`
# of the same folder does it too. The variables that follow the shell's nesting and its last
# `cd` are set to one value here; the rest is the caller's, the same for every step of a run.
swift_same_env() {
    env -u OLDPWD SHLVL=1 swift "$@"
}
