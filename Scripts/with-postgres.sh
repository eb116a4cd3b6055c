#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster, then removes the cluster.
#
#   Scripts/with-postgres.sh swift test --traits Postgres --filter PostgresTests
#
# - Installs PostgreSQL from Debian packages when initdb/pg_ctl are missing.
# - Creates a cluster in a temporary directory, owned by the `postgres` user when run as root
#   (the server refuses to run as root), listening on 127.0.0.1 on a free port.
# - Exports SLOTSCHEDULER_DATABASE_URL (postgres://postgres@127.0.0.1:PORT/slotscheduler) and
#   SLOTSCHEDULER_PG_RESTART_CMD (a shell command that restarts the server, used by the fault
#   test), plus PGHOST/PGPORT/PGUSER/PGDATABASE for psql and pgbench.
# - Stops and deletes the cluster on exit, and exits with the command's exit code.
#
# - With openssl, the server offers TLS with a throwaway CA: SLOTSCHEDULER_PG_CA_FILE is that CA,
#   SLOTSCHEDULER_PG_WRONG_CA_FILE another one; the certificate names `localhost` only.
#
# Environment: PG_EXTRA_OPTS adds server options (e.g. "-c synchronous_commit=off").
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: $0 command [args...]" >&2
    exit 64
fi

log() { echo "with-postgres: $*" >&2; }

source "$(dirname "$0")/pg-lib.sh"

if ! BINDIR=$(find_bindir); then
    log "installing PostgreSQL from Debian packages"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-contrib >&2
    BINDIR=$(find_bindir) || { log "initdb/pg_ctl still missing after installing postgresql"; exit 69; }
fi

set_runas

WORKDIR=$(mktemp -d /tmp/slotscheduler-pg.XXXXXX)
chmod 755 "$WORKDIR"
[[ -n "$RUNAS" ]] && chown postgres: "$WORKDIR"
DATA="$WORKDIR/data"
LOGFILE="$WORKDIR/server.log"
PORT=$(free_port) || { log "no free port"; exit 69; }

cleanup() {
    local status=$?
    if [[ -f "$DATA/postmaster.pid" ]]; then
        $RUNAS "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    if [[ $status -ne 0 && -f "$LOGFILE" ]]; then
        log "server log (last 30 lines):"
        tail -n 30 "$LOGFILE" >&2 || true
    fi
    rm -rf "$WORKDIR"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# TLS: a throwaway CA and a server certificate for the name `localhost` only (no IP address), so
# the TLS tests can check `verify-full` with the right CA and host, a wrong CA, and a wrong host
# (127.0.0.1). Plain connections keep working (ssl=on only offers TLS).
TLS_OPTS=""
if command -v openssl >/dev/null 2>&1; then
    TLSDIR="$WORKDIR/tls"
    mkdir -p "$TLSDIR"
    (
        cd "$TLSDIR"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=SlotScheduler test CA" \
            -keyout ca.key -out ca.pem
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Another CA" -keyout wrong-ca.key -out wrong-ca.pem
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost\n' >san.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext \
            -out server.pem
    ) >"$WORKDIR/tls.log" 2>&1 || { cat "$WORKDIR/tls.log" >&2; exit 70; }
    chmod 600 "$TLSDIR/server.key"
    [[ -n "$RUNAS" ]] && chown -R postgres: "$TLSDIR"
    TLS_OPTS="-c ssl=on -c ssl_cert_file=$TLSDIR/server.pem -c ssl_key_file=$TLSDIR/server.key"
    export SLOTSCHEDULER_PG_CA_FILE="$TLSDIR/ca.pem" SLOTSCHEDULER_PG_WRONG_CA_FILE="$TLSDIR/wrong-ca.pem"
fi

log "cluster in $WORKDIR, port $PORT, binaries $BINDIR"
$RUNAS "$BINDIR/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$WORKDIR/initdb.log" 2>&1 \
    || { cat "$WORKDIR/initdb.log" >&2; exit 70; }
# A port can still be taken between free_port and the server's bind: then take another, twice.
for attempt in 1 2 3; do
    OPTS="-c listen_addresses=127.0.0.1 -p $PORT -k $WORKDIR -c max_connections=300 -c shared_buffers=128MB $TLS_OPTS ${PG_EXTRA_OPTS:-}"
    if $RUNAS "$BINDIR/pg_ctl" -D "$DATA" -o "$OPTS" -l "$LOGFILE" -w -t 60 start >/dev/null; then break; fi
    if [[ $attempt -eq 3 ]] || ! grep -q "Address already in use" "$LOGFILE"; then exit 70; fi
    PORT=$(free_port) || { log "no free port"; exit 69; }
    log "port taken, retrying on port $PORT"
done
"$BINDIR/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -c "CREATE DATABASE slotscheduler" >/dev/null

export SLOTSCHEDULER_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/slotscheduler"
# `-m immediate` is a crash: the server recovers from its write-ahead log on start.
export SLOTSCHEDULER_PG_RESTART_CMD="$RUNAS $BINDIR/pg_ctl -D $DATA -m immediate -w -t 60 -l $LOGFILE restart >/dev/null"
export PGHOST=127.0.0.1 PGPORT="$PORT" PGUSER=postgres PGDATABASE=slotscheduler
export SLOTSCHEDULER_PG_BINDIR="$BINDIR"

set +e
"$@"
status=$?
set -e
exit "$status"
