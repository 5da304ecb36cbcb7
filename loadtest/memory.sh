#!/usr/bin/env bash
# A memory run for admission control: with the GC heap capped, does a burst of maximum-size uploads get only correct
# signatures and 503s with Retry-After, and how high does the server's resident memory go? For every strategy in turn
# it starts SigningServer (Release) on 127.0.0.1 with DOTNET_GCHeapHardLimit set, sends N uploads of one body just
# under Signing:MaxRequestBodyBytes all at once with curl, waits for every answer, reads the server's peak resident
# set (VmHWM in /proc/PID/status) and stops it.
#
#   loadtest/memory.sh [--uploads 16] [--heap-limit 0x40000000] [--body-limit 33554432]
#                      [--strategies all|NAME,NAME] [--max-time 120] [--host server|functions] [--out artifacts/memory-run/summary.md]
#   loadtest/memory.sh --attack headers|reserve|bodies|trickle|steady|bombs|idle|none [--attackers N] [--seconds 40] [--reopen-delay 1]
#                      [--heap-limit 0x40000000|none] [--per-client N] [--host server|functions] [--out artifacts/memory-run/attack-KIND.md]
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
#
# --attack runs one cheap attack instead of the burst, beside an honest client that signs a 3,000-widget (1.1 MB) body
# again and again with the default strategy, one request at a time, for --seconds (40), on one fresh server:
#   headers  --attackers (5,000) connections trickle header lines and never end them, each reopened --reopen-delay
#            seconds (1) after the server cuts it;
#   reserve  --attackers (55) connections send headers declaring a body of --body-limit bytes with ?strategy=string
#            and then nothing (every fifth declares less, to take what the others leave), each reopened
#            --reopen-delay seconds after the server answers or cuts it;
#   bodies   --attackers (1,000) connections send headers declaring a body of --body-limit bytes and the first 1 MiB of
#            the honest body at once, and then nothing, each reopened --reopen-delay seconds after the server answers or
#            cuts it: what Kestrel reads ahead of the endpoint, for every connection at once;
#   trickle  as bodies, and then one more byte of the body every second, so the body is never silent for long;
#   steady   --attackers (30) connections send 8 MiB of a body at once and then 16 KiB every half second, never silent
#            for a beat, each reopened --reopen-delay seconds after the server answers or cuts it;
#   bombs    --attackers (8) connections each send a whole request with ?strategy=utf8 whose gzip body inflates to an
#            envelope of no widgets padded with spaces to --body-limit bytes (32 KB on the wire for 32 MiB), again as
#            soon as the server answers (--reopen-delay 0 by default here): processor time, not memory;
#   idle     --attackers (5,000) connections that send nothing;
#   none     the honest client alone, the baseline.
# The attackers are loadtest/lib/attack.py (python3, asyncio). The table gives the honest signs served (200 with the
# body's HMAC) and failed (by status; 000 is no answer), the server's peak and starting RSS, and what the attackers
# saw (opened, cut by the server, failed to connect, the server's answers). --per-client N sets SigningServer's
# Signing:MaxConcurrentRequestsPerClient to N and has the attackers connect from 127.0.0.2, a client address of their
# own (the honest client stays at 127.0.0.1); SigningServer only. The open-file limit is raised for the
# attackers and the server. --heap-limit none leaves the heap uncapped, the default settings' budget (40% of memory).
# Loopback only, every curl bounded by --max-time, and the server and uploads it started are stopped however it ends.
# Needs the .NET SDK, curl, jq and openssl (and python3 for --attack).
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
out=
attack=
attackers=
seconds=40
reopen_delay=
per_client=

usage() {
  sed -n '8,11p' "$0" | sed 's/^#//' >&2
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
    --attack) attack=${2:?}; shift 2 ;;
    --attackers) attackers=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --reopen-delay) reopen_delay=${2:?}; shift 2 ;;
    --per-client) per_client=${2:?}; shift 2 ;;
    *) usage ;;
  esac
done

case "$attack" in
  '') out=${out:-artifacts/memory-run/summary.md} ;;
  headers | idle) attackers=${attackers:-5000} ;;
  reserve) attackers=${attackers:-55} ;;
  bodies | trickle) attackers=${attackers:-1000} ;;
  steady) attackers=${attackers:-30} ;;
  bombs) attackers=${attackers:-8} reopen_delay=${reopen_delay:-0} ;;
  none) attackers=0 ;;
  *) echo "--attack is headers, reserve, bodies, trickle, steady, bombs, idle or none: '$attack'." >&2; usage ;;
esac
reopen_delay=${reopen_delay:-1}
out=${out:-artifacts/memory-run/attack-$attack.md}
for number in $uploads $body_limit $max_time $seconds ${attackers:-0}; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "Not a whole number: '$number'." >&2; usage; }
done
[[ "$heap_limit" =~ ^(0[xX][0-9a-fA-F]+|[0-9]+|none)$ ]] || { echo "Not a byte count in hex (0x…) or decimal, or none: '$heap_limit'." >&2; usage; }
[[ "$reopen_delay" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "Not a number of seconds: '$reopen_delay'." >&2; usage; }
if [ -n "$per_client" ]; then
  [[ "$per_client" =~ ^[1-9][0-9]*$ ]] || { echo "--per-client is a number of requests, at least 1: '$per_client'." >&2; usage; }
  [ "${host:-server}" = server ] || { echo "--per-client is SigningServer's setting; the Functions worker's client is its host." >&2; exit 2; }
fi
[ "$seconds" -ge 1 ] && [ "$seconds" -le 300 ] || { echo "--seconds must be 1 to 300." >&2; exit 2; }
[ "$uploads" -ge 1 ] && [ "$max_time" -ge 1 ] && [ "$body_limit" -ge 4096 ] || { echo "Uploads and --max-time must be at least 1, the body limit at least 4096." >&2; exit 2; }
# The runtime reads every DOTNET_GC setting as hex, with or without 0x: a decimal count is passed on converted.
if [ "$heap_limit" = none ]; then
  heap_bytes=$(free -b | awk '$1 == "Mem:" { print $2 }')
  heap_hex=none
  heap_text="the heap not capped ($((heap_bytes / 1048576)) MiB of memory)"
else
  heap_bytes=$((heap_limit))
  heap_hex=$(printf '0x%x' "$heap_bytes")
  heap_text="GC heap capped at $((heap_bytes / 1048576)) MiB ($heap_hex)"
fi
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
server_env=(Signing__Key="$key_base64" Signing__MaxRequestBodyBytes="$body_limit")
[ "$heap_hex" = none ] || server_env+=(DOTNET_GCHeapHardLimit="$heap_hex")
[ -z "$per_client" ] || server_env+=(Signing__MaxConcurrentRequestsPerClient="$per_client")

# Reads a field of /proc/PID/status in KiB and prints it in MiB, or "–" when the process is gone.
resident_mib() {
  awk -v field="$1:" '$1 == field { printf "%.0f", $2 / 1024; found = 1 } END { if (!found) printf "–" }' \
    "/proc/$signer_pid/status" 2>/dev/null || printf '–'
}

if [ -n "$attack" ]; then
  command -v python3 >/dev/null || { echo "memory.sh --attack needs python3 on PATH." >&2; exit 2; }
  # Every attacker holds a socket here and one in the server, which inherits this limit.
  needed=$((2 * attackers + 1024))
  [ "$(ulimit -n)" -ge "$needed" ] || ulimit -n "$needed" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  [ "$(ulimit -n)" -ge "$needed" ] || { echo "$attackers attackers need $needed open files; the hard limit is $(ulimit -Hn)." >&2; exit 2; }

  body=$work/honest.json
  dotnet "$payload_dll" --widgets 3000 --seed 1 --out "$body" >/dev/null
  body_bytes=$(stat -c %s "$body")
  expected=$(openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key_hex" -r "$body" | cut -d ' ' -f 1)
  dir=$work/attack-$attack
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "== --attack $attack: $attackers attackers for $seconds s beside one honest client signing $body_bytes bytes, $heap_text"
  start_server "$dir/server.log" "${server_env[@]}"
  before=$(resident_mib VmRSS)
  port=${base_url##*:}
  echo '{}' >"$dir/attackers.json"
  attacker_pid=
  if [ "$attackers" -gt 0 ]; then
    # attack.py stops at --seconds by itself; the timeout is for a socket call that would not return.
    timeout "$((seconds + 30))" python3 loadtest/lib/attack.py --port "$port" --kind "$attack" --connections "$attackers" \
      --seconds "$seconds" --reopen-delay "$reopen_delay" --body-limit "$body_limit" --body-file "$body" \
      ${per_client:+--source 127.0.0.2} >"$dir/attackers.json" 2>"$dir/attackers.err" &
    attacker_pid=$!
    upload_pids+=("$attacker_pid")
  fi
  # The honest client: one sign at a time until the attack ends, each bounded by --max-time (10 s at most here, as a
  # client with a timeout would be), its status, time and whether its signature is the body's HMAC on one line.
  (
    end=$((SECONDS + seconds))
    while [ "$SECONDS" -lt "$end" ]; do
      status=$(curl -sS --max-time "$((max_time < 10 ? max_time : 10))" --connect-timeout 5 -o "$dir/last.body" -w '%{http_code} %{time_total}' \
        -H 'Content-Type: application/json' -H 'Expect:' --data-binary "@$body" "$base_url/api/sign" 2>>"$dir/honest.curl.txt" || true)
      right=no
      [ "${status%% *}" = 200 ] && [ "$(jq -r '.signature' "$dir/last.body" 2>/dev/null)" = "$expected" ] && right=yes
      echo "$status $right"
    done
  ) >"$dir/honest.txt" &
  honest_pid=$!
  upload_pids+=("$honest_pid")
  # The honest client's curl failures are its results; the attackers' own failure (a refused option, a timeout) means
  # the run measured no attack at all, so it ends the script rather than pass for one.
  attacker_status=0
  for pid in "${upload_pids[@]}"; do
    if [ "$pid" = "$attacker_pid" ]; then wait "$pid" || attacker_status=$?; else wait "$pid" || true; fi
  done
  upload_pids=()
  peak=$(resident_mib VmHWM)
  if read_stats >/dev/null 2>&1; then up=yes; else up="**no**"; fi
  stop_server
  if [ "$attacker_status" -ne 0 ]; then
    echo "The attackers (loadtest/lib/attack.py) exited with $attacker_status, so this run measured no attack:" >&2
    cat "$dir/attackers.err" >&2
    exit 1
  fi

  served=$(awk '$3 == "yes"' "$dir/honest.txt" | wc -l)
  failed=$(awk '$3 != "yes"' "$dir/honest.txt" | wc -l)
  failures=$(awk '$3 != "yes" { n[$1 == "200" ? "200 with a wrong signature" : $1]++ } END { for (s in n) printf "%s%s × %d", sep, s, n[s]; sep = ", " }' "$dir/honest.txt")
  mean=$(awk '$3 == "yes" { t += $2; n++ } END { if (n) printf "%.2f", t / n; else printf "–" }' "$dir/honest.txt")
  seen=$(jq -r 'if .opened == null then "none" else "\(.opened) opened, \(.cutByServer) cut, \(.connectFailures) failed to connect, at most \(.peakOpen) open; answers: \(.answers | to_entries | map("\(.key) × \(.value)") | join(", "))" end' "$dir/attackers.json")
  {
    echo "\`$command_line\`"
    echo
    echo "$(host_description): $attackers attackers (--attack $attack) for $seconds s beside one honest client signing $body_bytes bytes with the default strategy, one at a time; Signing:MaxRequestBodyBytes $body_limit, $heap_text, attackers reopening $reopen_delay s after each cut; loopback, $(nproc) cores, $(date -u +%Y-%m-%d)"
    echo
    echo "| attack | attackers | honest signs served (200, right HMAC) | failed | failures | mean s per served sign | peak RSS MiB (VmHWM) | RSS before MiB | stayed up | attackers saw |"
    echo "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |"
    echo "| $attack | $attackers | $served | $failed | ${failures:-none} | $mean | $peak | $before | $up | $seen |"
  } | tee "$out"
  echo "Written to $out; each honest sign's status in $dir/honest.txt, the attackers' tally in $dir/attackers.json"
  [ "$up" = yes ] && [ "$served" -gt 0 ]
  exit
fi

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

rows=()
failed=0
budget=
IFS=',' read -r -a names <<<"$strategies"
for strategy in "${names[@]}"; do
  dir=$work/$strategy
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "== $strategy: $uploads uploads of $body_bytes bytes at once, $heap_text"
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
  echo "$(host_description), $(date -u +%F): $uploads uploads at once per strategy, each $body_bytes bytes ($widgets widgets; Signing:MaxRequestBodyBytes $body_limit), $heap_text, in-flight budget ${budget:-?} MiB (its default, derived from the cap); a fresh server per strategy, $(nproc) cores"
  echo
  echo "| strategy | signed (200) | refused (503 + Retry-After) | 500 | other | signatures | peak RSS MiB (VmHWM) | RSS before MiB | burst s | stayed up |"
  echo "| --- | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Run time $((SECONDS - started)) s, from the body's generation to the last server's stop."
} | tee "$out"
echo "Written to $out; statuses, headers, bodies and server logs in $work/STRATEGY/"
exit "$failed"
