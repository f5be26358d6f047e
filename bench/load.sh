#!/usr/bin/env bash
# A class of 100 concurrent clients on loopback (QUALITY.md, Speed and Reliability):
# wrk -t2 -c100 for DURATION seconds (default 30) against the evidence fragment and the same
# server's /healthz, in one run. Budget: evidence >= 60% of healthz requests/sec, zero non-2xx
# and zero socket errors. bench/http.py starts the server on 127.0.0.1 and always stops it.
#
#   bench/load.sh            # 30 s per wrk run
#   bench/load.sh 10         # shorter
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-30}"
PY="${PY:-.venv/bin/python}"
if ! command -v wrk >/dev/null 2>&1; then
  echo "wrk is not installed (apt-get install wrk); only the one-client figures will be printed"
fi
exec "$PY" bench/http.py --duration "$DURATION"
