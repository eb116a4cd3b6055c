# The schedule-sim binary a script runs, sourced by the scripts that run it:
#
#   source Scripts/lib/schedule-sim.sh
#   BIN=$(schedule_sim_binary [SWIFT BUILD FLAGS...])
#
# With SCHEDULE_SIM set (CI builds the simulator once and names it there), that binary, built by
# nobody here; otherwise a release build of this checkout with the given flags (for example
# `--traits Postgres`, which the PostgreSQL store needs), and its path.
schedule_sim_binary() {
    if [[ -n "${SCHEDULE_SIM:-}" ]]; then
        [[ -x "$SCHEDULE_SIM" ]] || { echo "error: SCHEDULE_SIM=$SCHEDULE_SIM is not an executable" >&2; return 1; }
        printf '%s\n' "$SCHEDULE_SIM"
        return
    fi
    swift build -c release --product schedule-sim "$@" >&2 || return 1
    printf '%s/schedule-sim\n' "$(swift build -c release "$@" --show-bin-path)"
}
