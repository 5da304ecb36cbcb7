#!/usr/bin/env bash
# What one request costs the whole process in allocations, per strategy: SigningServer (Release), or the Functions worker, on 127.0.0.1, a few
# warm-up requests (enough for every thread-pool thread to have made its per-thread HMAC state), then N sequential requests between two reads of /api/stats, whose gc.totalAllocatedBytes counts
# every thread (Kestrel, the body, the parse, the sign, the response), not only the request's own as the cost headers
# do. Sequential, so the difference is the requests' and nothing else's. See docs/load-test.md.
#
#   loadtest/request-allocation.sh [--widgets "3000 60000"] [--requests 50] [--warmup 20] [--strategies all|NAME,NAME] [--host server|functions] [--out artifacts/request-allocation]
#
# --host functions measures the published Functions worker under tests/SigningFunctions.TestHost (loadtest/lib/server.sh):
# /api/stats is the worker's, so the test host's own forwarding is not counted. Loopback only, every request bounded in time, and the server it started is stopped however the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

widgets="3000 60000"
requests=50
warmup=20
strategies=all
out=artifacts/request-allocation

usage() {
  sed -n '7p' "$0" | sed 's/^#//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --widgets) widgets=${2:?}; shift 2 ;;
    --requests) requests=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --strategies) strategies=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --host) host=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done
for number in $widgets $requests $warmup; do
  [[ "$number" =~ ^[0-9]+$ ]] && [ "$number" -ge 1 ] || { echo "Not a whole number of at least 1: '$number'." >&2; usage; }
done
for tool in dotnet curl jq; do
  command -v "$tool" >/dev/null || { echo "request-allocation.sh needs '$tool' on PATH." >&2; exit 2; }
done

# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
check_host
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
mkdir -p "$out"
out=$(cd "$out" && pwd)
trap stop_server EXIT
trap 'exit 130' INT TERM

# Signs $3 with strategy $2 $1 times in a row; every answer must be a 200.
sign() {
  local times=$1 strategy=$2 payload=$3 status
  for _ in $(seq "$times"); do
    status=$(curl -sS --max-time 60 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
      --data-binary "@$payload" "$base_url/api/sign?strategy=$strategy")
    [ "$status" = 200 ] || { echo "$strategy answered $status." >&2; exit 1; }
  done
}

allocated() { read_stats | jq '.gc.totalAllocatedBytes'; }

summary="$out/summary.md"
{
  echo "Process-wide bytes allocated per request, $requests sequential requests per row after $warmup of warm-up, a fresh $(host_description) (Release) per body size, $(date -u +%F)."
  echo "Command: loadtest/request-allocation.sh --widgets \"$widgets\" --requests $requests --warmup $warmup --strategies $strategies --host $host"
  echo
  echo "| widgets | body bytes | strategy | allocated per request |"
  echo "| ---: | ---: | --- | ---: |"
} >"$summary"

for count in $widgets; do
  payload="$out/widgets-$count.payload.json"
  dotnet "$payload_dll" --widgets "$count" --seed 1 --out "$payload"
  bytes=$(wc -c <"$payload" | tr -d ' ')
  start_server "$out/widgets-$count.server.log"
  names=$strategies
  [ "$names" = all ] && names=$(read_stats | jq -r '[.strategies[].name] | join(",")')
  for strategy in ${names//,/ }; do
    sign "$warmup" "$strategy" "$payload"
    before=$(allocated)
    sign "$requests" "$strategy" "$payload"
    after=$(allocated)
    per=$(((after - before) / requests))
    echo "| $count | $bytes | \`$strategy\` | $per |" | tee -a "$summary"
  done
  stop_server
done
echo "Written to $summary"
