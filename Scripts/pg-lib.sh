# Shared by the PostgreSQL scripts (with-postgres.sh, pg-crash.sh, pg-failover.sh): source it.

# The directory of initdb and pg_ctl: Debian keeps the server binaries out of PATH, one
# directory per major version (newest first); else PATH's.
find_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
            echo "$dir"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v pg_ctl)"
        return 0
    fi
    return 1
}

as_root() {
    if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi
}

# Sets RUNAS: the server runs as `postgres` when we are root (it refuses root), as ourselves otherwise.
set_runas() {
    if [[ $(id -u) -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
        RUNAS="runuser -u postgres --"
    else
        RUNAS=""
    fi
}

# A port for a test server: below the kernel's ephemeral range (where a client connection's own
# end can sit on any port, so a port nobody listens on may still be taken) and one that binds now.
free_port() {
    local port low=32768 range
    range=$(cat /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) && low=${range%%[[:space:]]*}
    (( low > 20000 + 1000 )) || low=50000
    for _ in $(seq 1 200); do
        port=$((20000 + RANDOM % (low - 20000)))
        if python3 -c 'import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

# Starts PROCESSES schedule-sim processes of SCENARIO against the store URL ($1), each with
# THREADS threads and its history in WORK, bounded by RUN_TIMEOUT; extra run flags in the array
# `extra`. Sets `pids` and `histories` (--history flags for verify-store).
start_sim_processes() {
    local i
    pids=()
    histories=()
    for ((i = 0; i < PROCESSES; i++)); do
        histories+=(--history "$WORK/history-$i.jsonl")
        timeout "$RUN_TIMEOUT" "$BIN" run "$SCENARIO" --store "$1" --threads "$THREADS" "${extra[@]}" \
            --process-index "$i" --process-count "$PROCESSES" --history "$WORK/history-$i.jsonl" \
            >"$WORK/process-$i.log" 2>&1 &
        pids+=($!)
    done
}

# Whether every process start_sim_processes started is booking: its history (created once its
# store is open, written from the first operation on) is not empty. A fault before that would land
# while a process opens its store, which then exits 69 (cannot open the store).
processes_booking() { processes_past 1; }

# Whether every process's history (its partial file, as above) holds at least $1 lines.
processes_past() {
    local i partial
    for ((i = 0; i < PROCESSES; i++)); do
        partial=$(compgen -G "$WORK/history-$i.jsonl.*.partial" | head -1) || return 1
        [[ $(wc -l <"$partial") -ge $1 ]] || return 1
    done
}
