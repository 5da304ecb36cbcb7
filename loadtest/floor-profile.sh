#!/usr/bin/env bash
# Where a strategy's processor time goes beyond the wire floor's: both servers up, each driven in turn under perf, and
# perf's samples turned into microseconds per request, by library and by symbol, so that the two columns add up to what
# loadtest/floor-rounds.sh measures as a whole. The servers are started as floor-rounds.sh starts them, with the .NET
# runtime writing a map of its compiled code for perf (DOTNET_PerfMapEnabled) so that managed symbols have names.
#
#   loadtest/floor-profile.sh [--widgets 3000] [--rounds 2] [--seconds 8] [--warmup 15] [--connections 8]
#                             [--strategy transcode] [--top 25] [--out artifacts/floor-profile]
#
# Prints, per round, the floor's and the strategy's microseconds per request for each library and for the named symbols
# that take the most, highest first: each one's share of perf's samples times the server's processor time per request
# over the drive (from /proc/PID/stat, as floor-rounds.sh reads it), so that a late start of perf's recording changes no
# figure. Libraries without symbols (OpenSSL's libcrypto) appear in the first list only. Needs the .NET SDK, curl, wrk
# and perf (Debian's linux-perf; perf must be allowed to profile other processes: run as root or lower
# kernel.perf_event_paranoid).
set -euo pipefail
cd "$(dirname "$0")/.."

widgets=3000
rounds=2
seconds=8
warmup=15
connections=8
strategy=transcode
top=25
out=artifacts/floor-profile
host=server
while [ $# -gt 0 ]; do
  case "$1" in
    --widgets) widgets=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --strategy) strategy=${2:?}; shift 2 ;;
    --top) top=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    *) echo "Unknown option '$1'; see the comment at the top of $0." >&2; exit 2 ;;
  esac
done

for number in $widgets $rounds $seconds $warmup $connections $top; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "Not a whole number of at least 1: '$number'." >&2; exit 2; }
done
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf." >&2; exit 1; }

# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
# shellcheck source=lib/floor.sh
. loadtest/lib/floor.sh
require_wrk

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
build_floor
mkdir -p "$out"
out=$(cd "$out" && pwd)
payload="$out/widgets-$widgets.payload.json"
dotnet "$payload_dll" --widgets "$widgets" --seed 1 --out "$payload"

# Only the servers write the map, and run their compiled code from memory perf can name: without these two perf names
# managed code by address alone.
export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
start_floor_and_server "$out" "$strategy"
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute

# Drives $1 for $2 seconds and prints the requests wrk counted (loadtest/local/sign.lua's summary line).
drive() {
  timeout $(($2 + 30)) wrk -t1 -c "$connections" -d "${2}s" --timeout 10s -s loadtest/local/sign.lua "$1" -- "$payload" |
    sed -nE 's/^\{.*"requests":([0-9]+),.*/\1/p'
}

# Prints perf's samples in $1 sorted by $2 (dso, or dso,sym), each as its share of $3 microseconds, the $4 largest
# with a name; $5 is the samples in all.
per_request() {
  perf report -i "$1" --stdio --no-children --sort "$2" -g none --show-nr-samples 2>/dev/null |
    awk -v total="$5" -v us="$3" -v top="$4" '/^ +[0-9]/ && $NF !~ /^0x[0-9a-f]+$/ && n < top {
      n++; s = $2; $1 = ""; $2 = ""; printf "  %8.1f %s\n", s / total * us, substr($0, 3, 150) }'
}

echo "== $widgets widgets, $connections connections: ${warmup} s of warm-up each, then $rounds rounds of ${seconds} s under perf on the floor and on $strategy"
drive "$floor_url/api/sign" "$warmup" >/dev/null
drive "$strategy_url/api/sign?strategy=$strategy" "$warmup" >/dev/null

for round in $(seq "$rounds"); do
  for who in floor "$strategy"; do
    if [ "$who" = floor ]; then url="$floor_url/api/sign" pid=$floor_pid; else url="$strategy_url/api/sign?strategy=$strategy" pid=$strategy_pid; fi
    data="$out/$who.$round.perf.data"
    # perf stops a moment before wrk does, so that every sample falls within the drive.
    perf record -F 1999 -p "$pid" -o "$data" -- sleep $((seconds - 1)) >/dev/null 2>&1 &
    recorder=$!
    before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    requests=$(drive "$url" "$seconds")
    after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    wait "$recorder"
    [ "${requests:-0}" -gt 0 ] || { echo "Round $round: $who answered no request." >&2; exit 1; }
    us=$(awk -v t=$((after - before)) -v r="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / r }')
    echo "== round $round, $who: $requests requests, $us us of processor time each; by library, then by symbol"
    samples=$(perf report -i "$data" --stdio --no-children --sort dso -g none --show-nr-samples 2>/dev/null |
      awk '/^ +[0-9]/ { s += $2 } END { print s + 0 }')
    [ "$samples" -gt 0 ] || { echo "Round $round: perf recorded no sample of $who." >&2; exit 1; }
    per_request "$data" dso "$us" 8 "$samples"
    per_request "$data" dso,sym "$us" "$top" "$samples"
  done
done
