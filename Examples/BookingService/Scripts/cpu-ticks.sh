# CPU time in clock ticks (getconf CLK_TCK a second), for speed.sh and database-cost.sh (sourced).
# cpu_ticks PID: the user and system time of a process.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# postgres_ticks: every postgres process's, and what the server's reaped children (backends of
# closed connections) used.
postgres_ticks() {
    local total=0 pid postmaster
    for pid in $(pgrep -x postgres); do total=$((total + $(cpu_ticks "$pid"))); done
    postmaster=$(pgrep -o -x postgres) || { echo "$total"; return; }
    echo $((total + $(awk '{print $16 + $17}' "/proc/$postmaster/stat" 2>/dev/null || echo 0)))
}
