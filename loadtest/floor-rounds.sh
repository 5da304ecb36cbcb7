#!/usr/bin/env bash
# One strategy against the wire floor in alternating rounds, both servers up the whole time. On a machine whose speed
# drifts (ours: the floor's requests per second moved by 30% between runs minutes apart), a ratio taken from two runs
# minutes apart measures the drift as much as the strategy, and loadtest/run-local.sh gives each strategy a run of its
# own. Here each round drives the floor for a few seconds and the strategy for as long (the floor first in odd rounds,
# the strategy first in even ones), so each round's ratio compares two drives seconds apart, and the median over the
# rounds is the figure to quote. See docs/load-test.md.
#
#   loadtest/floor-rounds.sh [--widgets 3000] [--rounds 10] [--seconds 5] [--warmup 20] [--connections 8]
#                            [--strategy transcode] [--out artifacts/floor-rounds] [--baseline DIR]
#   loadtest/floor-rounds.sh --pool DIR [DIR…]
#
# --baseline DIR (absolute, or relative to this repository's root) puts another checkout of this repository (git
# worktree add DIR COMMIT) in the floor's place: its SigningServer, built in Release from DIR and started as this one
# is, signs with the same strategy, so each round compares a change with the code before it as it compares a strategy
# with the floor, and every figure below is then a ratio to the baseline's.
#
# --pool DIR… builds and drives nothing: it prints the summary below over the rounds of earlier runs together (each
# DIR an --out of one, holding its rounds.txt; give --strategy too if they measured another). Runs of the same code on
# the same machine pool; one run of 16 rounds does not settle the second decimal here, and the pooled median's interval
# narrows as rounds are added. Runs against the floor and against a baseline do not pool.
#
# Prints one line per round (requests per second, p99 and processor time per request, each as a ratio to the floor's
# in the same round; the processor time also split into user and kernel time, the strategy's less the floor's, in
# microseconds per request), then the median, lowest and highest of each, and for the requests per second and the p99
# the interval that holds the true median with at least 95% confidence (from the rounds' order alone). The servers are
# started as run-local.sh starts them (Release, Production, SigningServer's Kestrel, server GC, per-request logging
# off) and stopped however the script ends. A drive in which a request is not signed (answered 400 or more, or cut
# off) stops the run with a line naming the server. Needs the .NET SDK, curl and wrk (installed from Debian's packages
# when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."

widgets=3000
rounds=10
seconds=5
warmup=20
connections=8
strategy=transcode
out=artifacts/floor-rounds
host=server
baseline=
pool=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pool)
      shift
      while [ $# -gt 0 ] && [[ "$1" != --* ]]; do pool+=("$1"); shift; done
      [ ${#pool[@]} -gt 0 ] || { echo "--pool takes one or more --out folders of earlier runs." >&2; exit 2; } ;;
    --widgets) widgets=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --seconds) seconds=${2:?}; shift 2 ;;
    --warmup) warmup=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --strategy) strategy=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --baseline) baseline=${2:?}; shift 2 ;;
    *) echo "Unknown option '$1'; see the comment at the top of $0." >&2; exit 2 ;;
  esac
done

# The median (of an even count, the mean of the middle two), lowest and highest of column $1 of the rounds in file
# $rounds_file, with $2 decimals.
summary() {
  sort -g -k"$1" "$rounds_file" | awk -v k="$1" -v d="${2:-2}" '{ v[NR] = $k } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    f = "%." d "f"
    printf "median " f " (" f " to " f ")", m, v[1], v[NR] }'
}
# Where the median of column $1 lies, whatever the rounds' spread: between the j-th lowest and j-th highest round, j the
# largest for which fewer than j of n rounds fall below the true median with a chance of at most 2.5% (binomial, one
# half), so the interval holds it with at least 95% confidence. Fewer than 6 rounds allow no such interval.
interval() {
  sort -g -k"$1" "$rounds_file" | awk -v k="$1" '{ v[NR] = $k } END {
    n = NR; p = 0.5 ^ n; below = 0
    for (j = 0; j < n && below + p <= 0.025; j++) { below += p; p = p * (n - j) / (j + 1) }
    if (j == 0) { printf "too few rounds to place the median"; exit }
    printf "the median within %.2f to %.2f (%.1f%%)", v[j], v[n - j + 1], 100 * (1 - 2 * below) }'
}
# The line that ends a run: $1 rounds of $strategy against the $reference.
report() {
  echo "$strategy against the $reference over $1 rounds: req/s $(summary 2), $(interval 2);" \
    "p99 $(summary 3), $(interval 3); CPU/req $(summary 4);" \
    "beyond the $reference's, user us/req $(summary 7 0), kernel us/req $(summary 8 0)"
}

if [ ${#pool[@]} -gt 0 ]; then
  rounds_file=$(mktemp)
  trap 'rm -f "$rounds_file"' EXIT
  reference=
  for dir in "${pool[@]}"; do
    [ -s "$dir/rounds.txt" ] || { echo "--pool takes the --out folders of earlier runs; '$dir' holds no rounds.txt." >&2; exit 2; }
    # A run leaves the log of the server it compared with, a baseline's ratios being to that code, not to the floor; a
    # folder used again keeps the other's log from before, so the newer one tells.
    kind=floor
    [ ! "$dir/baseline.server.log" -nt "$dir/floor.server.log" ] || kind=baseline
    [ -z "$reference" ] || [ "$reference" = "$kind" ] ||
      { echo "--pool: '$dir' compares with the $kind, the folders before it with the $reference; they do not pool." >&2; exit 2; }
    reference=$kind
    cat "$dir/rounds.txt" >>"$rounds_file"
  done
  report "$(wc -l <"$rounds_file") pooled"
  exit 0
fi

for number in $widgets $rounds $seconds $warmup $connections; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "Not a whole number of at least 1: '$number'." >&2; exit 2; }
done
[[ -z "$baseline" || -f "$baseline/src/SigningServer/SigningServer.csproj" ]] ||
  { echo "--baseline takes a checkout of this repository (git worktree add DIR COMMIT), not '$baseline'." >&2; exit 2; }

# shellcheck source=lib/server.sh
. loadtest/lib/server.sh
# shellcheck source=lib/floor.sh
. loadtest/lib/floor.sh
require_wrk

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
build_release
if [ -n "$baseline" ]; then
  build_baseline "$baseline"
  reference=baseline
else
  build_floor
  reference=floor
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
payload="$out/widgets-$widgets.payload.json"
dotnet "$payload_dll" --widgets "$widgets" --seed 1 --out "$payload"

start_floor_and_server "$out" "$strategy"

# Drives $1 for $2 seconds and prints "requests microseconds p99-microseconds cpu-ticks user-ticks": wrk's summary
# line (drive_signing, which fails when a request was not signed, naming server $4) and the server's processor time
# over the drive, all of it and in user mode, from /proc/PID/stat (process $3). The second after it lets the requests
# wrk left in flight finish before the other server is driven.
drive() {
  local url=$1 duration=$2 pid=$3 before after before_user after_user line
  read -r before before_user < <(processor_ticks "$pid")
  line=$(drive_signing "$url" "$duration" "$payload" "$connections" "$4") || return 1
  sleep 1
  read -r after after_user < <(processor_ticks "$pid")
  sed -E 's/.*"requests":([0-9]+),"durationMicroseconds":([0-9]+),.*"p99Microseconds":([0-9]+),.*/\1 \2 \3/' <<<"$line" |
    awk -v ticks=$((after - before)) -v user=$((after_user - before_user)) '{ print $0, ticks, user }'
}

floor_sign="$floor_url/api/sign"
[ -z "$baseline" ] || floor_sign="$floor_sign?strategy=$strategy"
strategy_sign="$strategy_url/api/sign?strategy=$strategy"
echo "== processor: $(machine_description)"
echo "== $widgets widgets, $connections connections: ${warmup} s of warm-up each, then $rounds rounds of ${seconds} s on the $reference and ${seconds} s on $strategy"
drive "$floor_sign" "$warmup" "$floor_pid" "The $reference" >/dev/null
drive "$strategy_sign" "$warmup" "$strategy_pid" "$strategy" >/dev/null

: >"$out/rounds.txt"
for round in $(seq "$rounds"); do
  # Odd rounds drive the floor first, even rounds the strategy first, so that whatever the order itself does to the
  # second drive (the first one's connections closing, the processor's clock) falls on both alike.
  if ((round % 2)); then
    floor_drive=$(drive "$floor_sign" "$seconds" "$floor_pid" "The $reference")
    strategy_drive=$(drive "$strategy_sign" "$seconds" "$strategy_pid" "$strategy")
  else
    strategy_drive=$(drive "$strategy_sign" "$seconds" "$strategy_pid" "$strategy")
    floor_drive=$(drive "$floor_sign" "$seconds" "$floor_pid" "The $reference")
  fi
  read -r f_requests f_micros f_p99 f_ticks f_user <<<"$floor_drive"
  read -r s_requests s_micros s_p99 s_ticks s_user <<<"$strategy_drive"
  awk -v r="$round" -v fq="$f_requests" -v fm="$f_micros" -v fp="$f_p99" -v ft="$f_ticks" -v fu="$f_user" \
    -v sq="$s_requests" -v sm="$s_micros" -v sp="$s_p99" -v st="$s_ticks" -v su="$s_user" -v hz="$(getconf CLK_TCK)" 'BEGIN {
      if (fq == 0 || sq == 0 || fp == 0 || ft == 0) { print "Round " r ": a server answered no request, or used no processor time." > "/dev/stderr"; exit 1 }
      us = 1e6 / hz
      printf "%d %.3f %.3f %.3f %.1f %.1f %.0f %.0f\n", r, (sq / sm) / (fq / fm), sp / fp, (st / sq) / (ft / fq), fq * 1e6 / fm, sq * 1e6 / sm,
        (su / sq - fu / fq) * us, ((st - su) / sq - (ft - fu) / fq) * us
    }' | tee -a "$out/rounds.txt" |
    awk -v ref="$reference" -v strategy="$strategy" '{ printf "round %d: %s %.1f req/s, %s %.1f req/s; req/s %.2f, p99 %.2f, CPU/req %.2f of the %s; beyond it, user %+d us/req, kernel %+d\n", $1, ref, $5, strategy, $6, $2, $3, $4, ref, $7, $8 }'
done

rounds_file="$out/rounds.txt"
report "$rounds"
