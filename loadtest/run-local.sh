#!/usr/bin/env bash
# A load run that works on one machine with no k6: builds Release, generates each payload with the repo's generator,
# and for every strategy in turn starts SigningServer on 127.0.0.1, warms it up, reads /api/stats, drives it with wrk
# (a Debian package) for the same time at the same concurrency, reads /api/stats again and stops it. Then it prints
# the per-strategy table the k6 script prints (loadtest/lib/strategy-table.js). See docs/load-test.md.
#
#   loadtest/run-local.sh [--widgets "300 3000"] [--duration 30] [--warmup 10] [--connections 8]
#                         [--strategies all|NAME,NAME] [--out artifacts/load-test]
#
# Each strategy gets a fresh server, so its garbage collections, large object heap and working set are its own and
# not what the strategy before it left behind. wrk is a closed model: each connection sends its next request when the
# last one is answered, so a slower strategy is offered fewer requests per second; compare the per-request columns.
# Loopback only, every step bounded in time, and the server it started is stopped however the script ends. The
# collector is the one the server's runtime config gives (server GC for SigningServer); DOTNET_gcServer=0 and other
# DOTNET_ GC settings in the environment reach it.
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
  sed -n '7,8p' "$0" | sed 's/^#//' >&2
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
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "Installing wrk from Debian's packages (apt-get install wrk)."
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    echo "run-local.sh needs wrk: sudo apt-get install wrk" >&2
    exit 2
  fi
fi

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
dotnet build src/SigningServer/SigningServer.csproj -c Release -v quiet -nologo
dotnet build src/Signing.Payload/Signing.Payload.csproj -c Release -v quiet -nologo
server_dir=src/SigningServer/bin/Release/net10.0
payload_dll=$PWD/src/Signing.Payload/bin/Release/net10.0/Signing.Payload.dll
mkdir -p "$out"
out=$(cd "$out" && pwd)

server_pid=
base_url=

stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM

# Starts SigningServer on a free loopback port with a key made for this run, and sets base_url.
start_server() {
  local log=$1
  local key
  key=$(head -c 32 /dev/urandom | base64)
  # exec keeps the subshell's process id, so server_pid is the server itself.
  # The per-request Information events (Signed, SignRejected) are off while measuring: a log line per request is the
  # logger's cost, not the strategy's, and docs/load-test.md was measured without them.
  (cd "$server_dir" && exec env Signing__Key="$key" ASPNETCORE_ENVIRONMENT=Production Logging__LogLevel__Signing.Http=Warning \
    dotnet SigningServer.dll --urls http://127.0.0.1:0) >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 300); do
    base_url=$(sed -n 's#.*Now listening on: \(http://127\.0\.0\.1:[0-9][0-9]*\).*#\1#p' "$log" | head -n 1)
    [ -n "$base_url" ] && return 0
    if ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$log" >&2
      echo "SigningServer exited before it listened." >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "SigningServer did not listen within 60 s; its log is $log." >&2
  exit 1
}

read_stats() {
  curl -fsS --max-time 10 "$base_url/api/stats" >"$1"
}

# wrk for a fixed time, bounded by timeout in case it hangs; prints its report.
drive() {
  local seconds=$1 strategy=$2 payload=$3
  timeout $((seconds + 30)) wrk -t1 -c "$connections" -d "${seconds}s" --timeout 10s -s loadtest/local/sign.lua \
    "$base_url/api/sign?strategy=$strategy" -- "$payload"
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
  tr ',' '\n' <<<"$strategies" >"$dir/strategies.txt"

  while read -r strategy; do
    echo "== $count widgets, $strategy: ${warmup} s warm-up, ${duration} s measured, $connections connections"
    start_server "$dir/$strategy.server.log"
    # wrk stops without waiting for answers, so after each drive the server gets a second to finish (or fail) the
    # requests it had started before its totals are read: a run's stats then hold that run's requests only.
    drive "$warmup" "$strategy" "$payload" >/dev/null
    sleep 1
    read_stats "$dir/$strategy.before.json"
    drive "$duration" "$strategy" "$payload" >"$dir/$strategy.wrk.txt"
    sleep 1
    read_stats "$dir/$strategy.after.json"
    stop_server
    grep '^{' "$dir/$strategy.wrk.txt" >"$dir/$strategy.wrk.json"
  done <"$dir/strategies.txt"

  title="wrk on loopback: $count widgets ($(wc -c <"$payload" | tr -d ' ') bytes), $connections connections, ${duration} s per strategy after ${warmup} s of warm-up, a fresh server each"
  echo
  node loadtest/local/report.js "$dir" "$title"
  echo "Written to $dir/summary.md and summary.json"
  echo
done
