#!/usr/bin/env bash
# A load run that works on one machine with no k6: builds Release, generates each payload with the repo's generator,
# and for every strategy in turn starts SigningServer on 127.0.0.1, warms it up, reads /api/stats, drives it with wrk
# (a Debian package) for the same time at the same concurrency, reads /api/stats again and stops it. Then it prints
# the per-strategy table the k6 script prints (loadtest/lib/strategy-table.js), and draws throughput, p99 latency and
# gen 2 collections by strategy beside it as summary.svg (loadtest/local/chart.js). See docs/load-test.md.
# Before the strategies, the wire floor (loadtest/lib/floor.sh) is driven the same way as a row named floor, and the
# table gives each strategy's throughput and p99 as a ratio to it.
#
#   loadtest/run-local.sh [--widgets "300 3000"] [--duration 30] [--warmup 10] [--connections 8]
#                         [--strategies all|NAME,NAME] [--host server|functions] [--out artifacts/load-test]
#
# Each strategy gets a fresh server, so its garbage collections, large object heap and working set are its own and
# not what the strategy before it left behind. wrk is a closed model: each connection sends its next request when the
# last one is answered, so a slower strategy is offered fewer requests per second; compare the per-request columns.
# --host functions runs the published Functions worker under tests/SigningFunctions.TestHost instead of SigningServer
# (loadtest/lib/server.sh). Loopback only, every step bounded in time, and the server it started is stopped however
# the script ends. The collector is the one the host's runtime config gives; DOTNET_gcServer=0 and other DOTNET_ GC
# settings in the environment reach it (through the test host, the worker).
# Needs the .NET SDK, Node.js (for the table), curl and wrk; as root on Debian it installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

widgets="300 3000"
duration=30
warmup=10
connections=8
strategies=all
out=artifacts/load-test

usage() {
  sed -n '10,11p' "$0" | sed 's/^#//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --widgets) widgets=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --strategies) strategies=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --host) host=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done

for number in $widgets $duration $warmup $connections; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "Not a whole number: '$number'." >&2; usage; }
done
[ "$duration" -ge 1 ] && [ "$warmup" -ge 1 ] && [ "$connections" -ge 1 ] || { echo "Duration, warm-up and connections must be at least 1." >&2; exit 2; }

# Strategy names are lowercase: the server ignores case, but answers and counts under the lowercase name.
strategies=$(tr '[:upper:]' '[:lower:]' <<<"$strategies")

for tool in dotnet node curl; do
  command -v "$tool" >/dev/null || { echo "run-local.sh needs '$tool' on PATH." >&2; exit 2; }
done
# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
# shellcheck source=lib/floor.sh
. loadtest/lib/floor.sh
check_host
require_wrk

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
build_floor
mkdir -p "$out"
out=$(cd "$out" && pwd)

trap stop_server EXIT
trap 'exit 130' INT TERM

# wrk for a fixed time (wrk_sign); prints its report.
drive() {
  local seconds=$1 strategy=$2 payload=$3
  wrk_sign "$base_url/api/sign?strategy=$strategy" "$seconds" "$payload" "$connections"
}

if [ "$strategies" = all ]; then
  start_server "$out/names.server.log"
  strategies=$(curl -fsS --max-time 10 "$base_url/api/stats" | node -e '
    let text = ""; process.stdin.on("data", (d) => { text += d; }).on("end", () => {
      console.log(JSON.parse(text).strategies.map((s) => s.name).join(","));
    });')
  stop_server
fi

for count in $widgets; do
  dir="$out/widgets-$count"
  rm -rf "$dir"
  mkdir -p "$dir"
  payload="$out/widgets-$count.payload.json"
  dotnet "$payload_dll" --widgets "$count" --seed 1 --out "$payload"
  { echo floor; tr ',' '\n' <<<"$strategies"; } >"$dir/strategies.txt"

  while read -r strategy; do
    echo "== $count widgets, $strategy: ${warmup} s warm-up, ${duration} s measured, $connections connections"
    # The floor has no /api/stats: only its processor time is read around the measured run.
    if [ "$strategy" = floor ]; then
      start_floor "$dir/floor.server.log"
      stats=false
    else
      start_server "$dir/$strategy.server.log"
      stats=true
    fi
    # wrk stops without waiting for answers, so after each drive the server gets a second to finish (or fail) the
    # requests it had started before its totals are read: a run's stats then hold that run's requests only.
    drive "$warmup" "$strategy" "$payload" >/dev/null
    sleep 1
    if $stats; then read_stats "$dir/$strategy.before.json"; else read_floor_cpu "$dir/floor.before.json"; fi
    drive "$duration" "$strategy" "$payload" >"$dir/$strategy.wrk.txt"
    sleep 1
    if $stats; then read_stats "$dir/$strategy.after.json"; else read_floor_cpu "$dir/floor.after.json"; fi
    stop_server
    grep '^{' "$dir/$strategy.wrk.txt" >"$dir/$strategy.wrk.json"
  done <"$dir/strategies.txt"

  title="$(host_description), wrk on loopback: $count widgets ($(wc -c <"$payload" | tr -d ' ') bytes), $connections connections, ${duration} s per strategy after ${warmup} s of warm-up, a fresh server each; $(machine_description)"
  echo
  node loadtest/local/report.js "$dir" "$title"
  echo "Written to $dir/summary.md and summary.json; the chart to $dir/summary.svg"
  echo
done
