#!/usr/bin/env bash
# A bounded soak: for every strategy in turn, a fresh SigningServer on 127.0.0.1 under a steady closed-loop load
# (wrk, a fixed number of connections each sending its next request when the last is answered), with /api/stats
# sampled every second into a CSV. Then a per-strategy summary after the warm-up: working set first/last/min/max,
# its least-squares slope in MB/min, collections during the run, pool in-use bytes and LOH at their highest, and a
# coarse table over time. See docs/soak.md.
#
#   loadtest/soak.sh [--duration 600] [--warmup 20] [--widgets 3000] [--connections 8]
#                    [--strategies all|NAME,NAME] [--host server|functions] [--out artifacts/soak]
#
# --duration is the total in seconds, split evenly across the strategies (600 s and seven strategies: 85 s each, in whole seconds);
# --warmup is how much of each strategy's time is left out of the summary (it is still sampled), and the samples
# taken in the 2 s after the load stops only say where the pool's in-use bytes settled. The CSV
# (samples.csv: timestamp,strategy,elapsed_s,working_set_bytes,gen0,gen1,gen2,pool_in_use_bytes,loh_bytes,requests)
# and summary.md go under --out. Loopback only, every step bounded in time, and the server and sampler it started
# are stopped however it ends. Exits non-zero if wrk saw any error. Needs the .NET SDK, curl, jq and wrk; as root on
# Debian it installs wrk when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

duration=600
warmup=20
widgets=3000
connections=8
strategies=all
out=artifacts/soak

usage() {
  sed -n '8,9p' "$0" | sed 's/^#//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --widgets) widgets=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --strategies) strategies=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --host) host=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done

for number in $duration $warmup $widgets $connections; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "Not a whole number: '$number'." >&2; usage; }
done
[ "$connections" -ge 1 ] && [ "$widgets" -ge 1 ] || { echo "Connections and widgets must be at least 1." >&2; exit 2; }
strategies=$(tr '[:upper:]' '[:lower:]' <<<"$strategies")

for tool in dotnet curl jq awk; do
  command -v "$tool" >/dev/null || { echo "soak.sh needs '$tool' on PATH." >&2; exit 2; }
done
# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
check_host
require_wrk

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
mkdir -p "$out"
out=$(cd "$out" && pwd)

sampler_pid=
stop_sampler() {
  if [ -n "$sampler_pid" ]; then
    kill "$sampler_pid" 2>/dev/null || true
    wait "$sampler_pid" 2>/dev/null || true
    sampler_pid=
  fi
}
trap 'stop_sampler; stop_server' EXIT
trap 'exit 130' INT TERM

# Appends one CSV row per second for strategy $1 to $2 until killed; elapsed is from $3 (epoch seconds). A sample
# that fails (the server busy past the bound, or the sampler stopped mid-request) is skipped, not invented, and quietly.
sample() {
  local strategy=$1 csv=$2 started=$3
  while :; do
    sleep 1 &
    local at=$EPOCHREALTIME
    if stats=$(curl -fs --max-time 2 "$base_url/api/stats"); then
      jq -r --arg s "$strategy" --argjson t0 "$started" --argjson at "$at" '[
          .timestamp, $s, (($at - $t0) * 10 | round / 10), .process.workingSetBytes,
          .gc.collections.gen0, .gc.collections.gen1, .gc.collections.gen2, (.streamPool.smallPoolInUseBytes + .streamPool.largePoolInUseBytes),
          .gc.lastCollection.generations.loh.sizeBeforeBytes,
          ([.strategies[] | select(.name == $s) | .requests] | add // 0)
        ] | @csv' <<<"$stats" >>"$csv"
    fi
    wait $!
  done
}

if [ "$strategies" = all ]; then
  start_server "$out/names.server.log"
  strategies=$(read_stats | jq -r '[.strategies[].name] | join(",")')
  stop_server
fi
tr ',' '\n' <<<"$strategies" >"$out/strategies.txt"
count=$(wc -l <"$out/strategies.txt")
each=$((duration / count))
[ "$each" -gt "$warmup" ] || { echo "$duration s over $count strategies is $each s each, not more than the $warmup s warm-up." >&2; exit 2; }

payload="$out/widgets-$widgets.payload.json"
dotnet "$payload_dll" --widgets "$widgets" --seed 1 --out "$payload"
csv="$out/samples.csv"
errors="$out/wrk-errors.csv"
echo "timestamp,strategy,elapsed_s,working_set_bytes,gen0,gen1,gen2,pool_in_use_bytes,loh_bytes,requests" >"$csv"
: >"$errors"
failed=0

while read -r strategy; do
  echo "== $strategy: $each s at $connections connections ($widgets widgets), the first $warmup s left out of the summary"
  start_server "$out/$strategy.server.log"
  sample "$strategy" "$csv" "$EPOCHREALTIME" &
  sampler_pid=$!
  wrk_sign "$base_url/api/sign?strategy=$strategy" "$each" "$payload" "$connections" >"$out/$strategy.wrk.txt"
  # The server gets a moment to finish what wrk left in flight, so the last samples show the pool drained.
  sleep 2
  stop_sampler
  stop_server
  grep '^{' "$out/$strategy.wrk.txt" | jq -r --arg s "$strategy" '[$s, .requests, .non2xx + .socketErrors] | @csv' | tr -d '"' >>"$errors"
  [ "$(tail -n 1 "$errors" | cut -d, -f3)" = 0 ] || failed=1
  # Samples are skipped when they fail, so a server that refused every read of /api/stats would leave a summary of
  # nothing: fewer than two after the warm-up fail the run instead.
  samples=$(awk -F, -v s="\"$strategy\"" -v warmup="$warmup" '$2 == s && $3 >= warmup' "$csv" | wc -l)
  if [ "$samples" -lt 2 ]; then
    echo "$strategy: $samples samples of /api/stats after the warm-up, so nothing was measured (see $out/$strategy.server.log)." >&2
    failed=1
  fi
done <"$out/strategies.txt"

title="$(host_description), soak on loopback: $widgets widgets ($(wc -c <"$payload" | tr -d ' ') bytes), $connections connections, $each s per strategy (a fresh server each), summary after the first $warmup s; $(machine_description)"
{
  echo "$title"
  echo
  awk -F, -v warmup="$warmup" -v until="$each" -v buckets=10 -f loadtest/lib/soak-summary.awk "$errors" "$csv"
} | tee "$out/summary.md"
echo "Samples in $csv; summary in $out/summary.md"
exit "$failed"
