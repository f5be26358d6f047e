#!/usr/bin/env bash
# First page load against QUALITY.md: <= 150 KB transferred, no request to another origin,
# Lighthouse (mobile) performance >= 95, accessibility 100, best practices 100.
# Lighthouse 12.x comes from the npm registry on first use (13.x needs Node 22), and drives
# Debian's chromium. Usage: scripts/lighthouse.sh [URL]  (default: a station started here)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s setup >/dev/null
url="${1:-}"
server=""
if [ -z "$url" ]; then
  port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  .venv/bin/python -m uvicorn --factory app.main:create_app --host 127.0.0.1 --port "$port" --log-level warning &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT
  for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
  url="http://127.0.0.1:$port/station"
fi
report=$(mktemp --suffix=.json)
CHROME_PATH=/usr/bin/chromium npx --yes lighthouse@12.2.3 "$url" --quiet --output=json \
  --output-path="$report" --form-factor=mobile \
  --only-categories=performance,accessibility,best-practices \
  --chrome-flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync"
.venv/bin/python - "$report" "$url" <<'PY'
import json, sys
from urllib.parse import urlsplit
report, url = json.load(open(sys.argv[1])), sys.argv[2]
origin = urlsplit(url).netloc
scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
audits = report["audits"]
size = audits["total-byte-weight"]["numericValue"] / 1024
requests = [r["url"] for r in audits["network-requests"]["details"]["items"]]
foreign = [u for u in requests if urlsplit(u).scheme in ("http", "https") and urlsplit(u).netloc != origin]
checks = [
    ("performance", scores["performance"], ">= 95", scores["performance"] >= 95),
    ("accessibility", scores["accessibility"], "100", scores["accessibility"] == 100),
    ("best practices", scores["best-practices"], "100", scores["best-practices"] == 100),
    ("transferred (KB)", f"{size:.0f}", "<= 150", size <= 150),
    ("requests off the origin", len(foreign), "0", not foreign),
]
for name, value, budget, ok in checks:
    print(f"{name:<24} {value!s:>6}   budget {budget:<6} {'ok' if ok else 'OVER BUDGET'}")
for k in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift"):
    print(f"{k:<24} {audits[k]['displayValue']:>6}")
sys.exit(0 if all(ok for *_, ok in checks) else 1)
PY
