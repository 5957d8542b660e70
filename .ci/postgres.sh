#!/usr/bin/env bash
# A throwaway PostgreSQL server for the results store's integration test
# (tests/integration/test_store_postgres.py). Needs Debian's postgresql package and root.
#   .ci/postgres.sh start   start it (or find it running) and print its SQLAlchemy URL
#   .ci/postgres.sh stop    stop it
# The server listens on 127.0.0.1 only, trusts local connections (a test server, no data of
# worth) and keeps its files in $CHIPPERF_PG_DIR (default /tmp/chipperf-pg).
set -euo pipefail

DIR="${CHIPPERF_PG_DIR:-/tmp/chipperf-pg}"
PORT="${CHIPPERF_PG_PORT:-55432}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [[ -z "$BIN" ]]; then
    echo ".ci/postgres.sh: no /usr/lib/postgresql/*/bin: apt-get install -y postgresql" >&2
    exit 2
fi
as_postgres() { runuser -u postgres -- "$@"; }

case "${1:-start}" in
start)
    if ! as_postgres "$BIN/pg_ctl" -D "$DIR" status >/dev/null 2>&1; then
        if [[ ! -f "$DIR/PG_VERSION" ]]; then
            install -d -o postgres -m 700 "$DIR"
            as_postgres "$BIN/initdb" -D "$DIR" -A trust -U chipperf >/dev/null
        fi
        as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w \
            -o "-p $PORT -h 127.0.0.1 -k $DIR" start >/dev/null
    fi
    echo "postgresql+psycopg://chipperf@127.0.0.1:$PORT/postgres"
    ;;
stop)
    as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop >/dev/null
    ;;
*)
    echo "usage: .ci/postgres.sh start|stop" >&2
    exit 2
    ;;
esac
