#!/usr/bin/env bash
# A memory run for admission control: with the GC heap capped, does a burst of maximum-size uploads get only correct
# signatures and 503s with Retry-After, and how high does the server's resident memory go? For every strategy in turn
# it starts SigningServer (Release) on 127.0.0.1 with DOTNET_GCHeapHardLimit set, sends N uploads of one body just
# under Signing:MaxRequestBodyBytes all at once with curl, waits for every answer, reads the server's peak resident
# set (VmHWM in /proc/PID/status) and stops it.
#
#   loadtest/memory.sh [--uploads 16] [--heap-limit 0x40000000] [--body-limit 33554432]
#                      [--strategies all|NAME,NAME] [--max-time 120] [--host server|functions] [--out artifacts/memory-run/summary.md]
#
# --heap-limit is bytes, in hex with 0x or in decimal; the in-flight budget (Signing:MaxInFlightBytes) is left to its
# default, derived from it. --body-limit sets the server's Signing:MaxRequestBodyBytes and sizes the body: generated
# with the repo's generator (canonical JSON, so its HMAC is the signature) at as many widgets as fit under it. Each
# strategy gets a fresh server, so each peak is its own. The table (per strategy: 200s, 503s with Retry-After, 500s
# counted apart, any other status, whether every signature equals the HMAC of the body, peak and pre-burst RSS, whether
# the process stayed up) is printed and written to --out with the command line above it; each upload's status, headers
# and body, and each server's log, go in a folder per strategy beside it. Exits non-zero when any upload got a 500 or
# another status, a signature was wrong, nothing was signed, or the server went down. --host functions runs the
# published Functions worker under tests/SigningFunctions.TestHost (loadtest/lib/server.sh): the heap cap, the settings
# and the resident memory read are the worker's.
# Loopback only, every curl bounded by --max-time, and the server and uploads it started are stopped however it ends.
# Needs the .NET SDK, curl, jq and openssl.
set -euo pipefail
# The arguments as they would be typed again, quoted only where the shell needs it.
quote() {
  local arg
  for arg in "$@"; do
    if [[ "$arg" =~ ^[A-Za-z0-9_./,:=@+%-]+$ ]]; then printf ' %s' "$arg"; else printf " '%s'" "${arg//\'/\'\\\'\'}"; fi
  done
}
command_line="loadtest/memory.sh$(quote "$@")"
cd "$(dirname "$0")/.."

uploads=16
heap_limit=0x40000000
body_limit=33554432
strategies=all
max_time=120
out=artifacts/memory-run/summary.md

usage() {
  sed -n '8,9p' "$0" | sed 's/^#//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --uploads) uploads=${2:?}; shift 2 ;;
    --heap-limit) heap_limit=${2:?}; shift 2 ;;
    --body-limit) body_limit=${2:?}; shift 2 ;;
    --strategies) strategies=${2:?}; shift 2 ;;
    --max-time) max_time=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --host) host=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done

for number in $uploads $body_limit $max_time; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "Not a whole number: '$number'." >&2; usage; }
done
[[ "$heap_limit" =~ ^(0[xX][0-9a-fA-F]+|[0-9]+)$ ]] || { echo "Not a byte count in hex (0x…) or decimal: '$heap_limit'." >&2; usage; }
[ "$uploads" -ge 1 ] && [ "$max_time" -ge 1 ] && [ "$body_limit" -ge 4096 ] || { echo "Uploads and --max-time must be at least 1, the body limit at least 4096." >&2; exit 2; }
# The runtime reads every DOTNET_GC setting as hex, with or without 0x: a decimal count is passed on converted.
heap_bytes=$((heap_limit))
heap_hex=$(printf '0x%x' "$heap_bytes")
strategies=$(tr '[:upper:]' '[:lower:]' <<<"$strategies")

for tool in dotnet curl jq openssl; do
  command -v "$tool" >/dev/null || { echo "memory.sh needs '$tool' on PATH." >&2; exit 2; }
done
# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
check_host

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
mkdir -p "$(dirname "$out")"
work=$(cd "$(dirname "$out")" && pwd)
out=$work/$(basename "$out")

upload_pids=()
stop_uploads() {
  local pid
  for pid in "${upload_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  upload_pids=()
}
trap 'stop_uploads; stop_server' EXIT
trap 'exit 130' INT TERM
started=$SECONDS

# One key for the whole run, so that signatures can be compared across servers and with openssl's HMAC of the body.
key_base64=$(head -c 32 /dev/urandom | base64)
key_hex=$(base64 -d <<<"$key_base64" | od -An -v -tx1 | tr -d ' \n')
server_env=(Signing__Key="$key_base64" Signing__MaxRequestBodyBytes="$body_limit" DOTNET_GCHeapHardLimit="$heap_hex")

# The body: as many widgets as fit under the limit, from the size of a small sample, stepping down if a guess is over.
body=$work/body.json
dotnet "$payload_dll" --widgets 1000 --seed 1 --out "$body" >/dev/null
widgets=$((body_limit * 99 * 1000 / (100 * $(stat -c %s "$body"))))
for _ in 1 2 3 4 5; do
  dotnet "$payload_dll" --widgets "$widgets" --seed 1 --out "$body" >/dev/null
  [ "$(stat -c %s "$body")" -le "$body_limit" ] && break
  widgets=$((widgets * 98 / 100))
done
body_bytes=$(stat -c %s "$body")
[ "$body_bytes" -le "$body_limit" ] || { echo "Could not make a body under $body_limit bytes." >&2; exit 1; }
expected=$(openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key_hex" -r "$body" | cut -d ' ' -f 1)

if [ "$strategies" = all ]; then
  start_server "$work/names.server.log" "${server_env[@]}"
  strategies=$(read_stats | jq -r '[.strategies[].name] | join(",")')
  stop_server
fi

# Reads a field of /proc/PID/status in KiB and prints it in MiB, or "–" when the process is gone.
resident_mib() {
  awk -v field="$1:" '$1 == field { printf "%.0f", $2 / 1024; found = 1 } END { if (!found) printf "–" }' \
    "/proc/$signer_pid/status" 2>/dev/null || printf '–'
}

rows=()
failed=0
budget=
IFS=',' read -r -a names <<<"$strategies"
for strategy in "${names[@]}"; do
  dir=$work/$strategy
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "== $strategy: $uploads uploads of $body_bytes bytes at once, heap capped at $heap_hex"
  start_server "$dir/server.log" "${server_env[@]}"
  [ -n "$budget" ] || budget=$(read_stats | jq -r '.inFlight.limitBytes / 1048576 | floor')
  before=$(resident_mib VmRSS)

  # Expect: is sent empty so that every body is sent whole, as most clients send it, rather than held back until the
  # server asks for it: a refused upload then still costs the server its reading or its closing of the connection.
  burst_started=$EPOCHREALTIME
  for i in $(seq "$uploads"); do
    curl -sS --max-time "$max_time" --connect-timeout 10 -o "$dir/$i.body" -D "$dir/$i.headers" -w '%{http_code}' \
      -H 'Content-Type: application/json' -H 'Expect:' --data-binary "@$body" \
      "$base_url/api/sign?strategy=$strategy" >"$dir/$i.status" 2>"$dir/$i.curl.txt" &
    upload_pids+=($!)
  done
  # Every curl ends within --max-time, so this wait does too. A curl that fails after its answer (the server closing a
  # refused upload's connection while the body is still being sent) has still written the status it got.
  for pid in "${upload_pids[@]}"; do
    wait "$pid" || true
  done
  upload_pids=()
  burst_seconds=$(awk -v a="$burst_started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

  peak=$(resident_mib VmHWM)
  if read_stats >/dev/null 2>&1; then
    up=yes
  elif kill -0 "$signer_pid" 2>/dev/null; then
    up="running, not answering"
    failed=1
  else
    up="**no**"
    failed=1
  fi
  stop_server

  signed=0 refused=0 errors=0 wrong=0
  other=()
  for i in $(seq "$uploads"); do
    status=$(cat "$dir/$i.status" 2>/dev/null || true)
    case "$status" in
      200)
        signed=$((signed + 1))
        [ "$(jq -r '.signature' "$dir/$i.body" 2>/dev/null)" = "$expected" ] || wrong=$((wrong + 1))
        ;;
      503)
        if grep -qi '^retry-after:' "$dir/$i.headers"; then refused=$((refused + 1)); else other+=("503 without Retry-After"); fi
        ;;
      500) errors=$((errors + 1)) ;;
      000 | '') other+=("no answer ($(tail -n 1 "$dir/$i.curl.txt" 2>/dev/null))") ;;
      *) other+=("$status") ;;
    esac
  done
  if [ "$wrong" -gt 0 ]; then signatures="**$wrong wrong**"; elif [ "$signed" -gt 0 ]; then signatures="all the body's HMAC"; else signatures="none signed"; fi
  if [ ${#other[@]} -gt 0 ]; then others=$(printf '%s\n' "${other[@]}" | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%s × %d", sep, substr($0, 2), n; sep = ", " }'); else others=0; fi
  if [ "$errors" -gt 0 ]; then
    echo "!! $strategy: $errors of $uploads uploads got 500 Internal Server Error; see $dir/server.log" >&2
    errors="**$errors**"
  fi
  [ "$errors" = 0 ] && [ "$others" = 0 ] && [ "$wrong" -eq 0 ] && [ "$signed" -gt 0 ] || failed=1
  rows+=("| \`$strategy\` | $signed | $refused | $errors | $others | $signatures | $peak | $before | $burst_seconds | $up |")
done

{
  echo "\`$command_line\`"
  echo
  echo "$(host_description), $(date -u +%F): $uploads uploads at once per strategy, each $body_bytes bytes ($widgets widgets; Signing:MaxRequestBodyBytes $body_limit), GC heap capped at $((heap_bytes / 1048576)) MiB ($heap_hex), in-flight budget ${budget:-?} MiB (its default, derived from the cap); a fresh server per strategy, $(nproc) cores"
  echo
  echo "| strategy | signed (200) | refused (503 + Retry-After) | 500 | other | signatures | peak RSS MiB (VmHWM) | RSS before MiB | burst s | stayed up |"
  echo "| --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Run time $((SECONDS - started)) s, from the body's generation to the last server's stop."
} | tee "$out"
echo "Written to $out; statuses, headers, bodies and server logs in $work/STRATEGY/"
exit "$failed"
