#!/usr/bin/env bash
# Where a strategy's processor time goes beyond the wire floor's: both servers up, each driven in turn under perf, and
# perf's samples turned into microseconds per request, by library and by symbol, so that the two columns add up to what
# loadtest/floor-rounds.sh measures as a whole. The servers are started as floor-rounds.sh starts them, with the .NET
# runtime writing a map of its compiled code for perf (DOTNET_PerfMapEnabled) so that managed symbols have names.
#
#   loadtest/floor-profile.sh [--widgets 3000] [--rounds 2] [--seconds 8] [--warmup 15] [--connections 8]
#                             [--strategy transcode] [--top 25] [--out artifacts/floor-profile]
#                             [--annotate Class:Method] [--host server|functions]
#
# Prints, per round, the floor's and the strategy's system calls per request (perf's tracepoints) and microseconds per
# request for each library and for the named symbols that take the most, highest first, then the symbols whose time
# differs most between the two (the strategy's less the floor's, with the sum over every symbol, so the long tail of
# small items shows too): each one's share of perf's samples times the server's processor time per request over the
# drive (from /proc/PID/stat, as floor-rounds.sh reads it), so that a late start of perf's recording changes no figure.
# Libraries without symbols (OpenSSL's libcrypto) appear among the named symbols only in the last list, each as one
# item. A drive in which a request is not signed stops the profile, as in floor-rounds.sh. Needs the .NET SDK, curl, wrk
# and perf (Debian's linux-perf; perf must be allowed to profile other processes: run as root or lower
# kernel.perf_event_paranoid).
#
# --annotate (for example TranscodeSession:Read) also says where inside one method of the strategy's server the time
# goes: the JIT writes its listing of the method's optimized code (DOTNET_JitDisasm, with the code's bytes), perf's
# samples in that code are counted per instruction, and each block of the listing gets its share of the method's
# samples and of the request, in the JIT's own block names (G_M000_IG79) and offsets; the listing with every
# instruction's share is written beside the perf data ($strategy.ROUND.annotated.txt), to read what each block does.
#
# --host functions profiles the strategy in the published Functions worker under tests/SigningFunctions.TestHost
# (loadtest/lib/server.sh) instead of SigningServer: perf records the worker's process, and its processor time per
# request is the worker's alone, as run-local.sh counts it; the test host's forwarding runs on the same cores uncounted.
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
annotate=
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
    --annotate) annotate=${2:?}; shift 2 ;;
    --host) host=${2:?}; shift 2 ;;
    *) echo "Unknown option '$1'; see the comment at the top of $0." >&2; exit 2 ;;
  esac
done

for number in $widgets $rounds $seconds $warmup $connections $top; do
  [[ "$number" =~ ^[1-9][0-9]*$ ]] || { echo "Not a whole number of at least 1: '$number'." >&2; exit 2; }
done
# perf records for a second less than each drive, so that it stops before wrk does.
[ "$seconds" -ge 2 ] || { echo "--seconds must be at least 2: perf records for a second less than each drive." >&2; exit 2; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install linux-perf." >&2; exit 1; }
[[ -z "$annotate" || "$annotate" =~ ^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$ ]] ||
  { echo "--annotate takes a class and a method, as Class:Method (TranscodeSession:Read), not '$annotate'." >&2; exit 2; }

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
payload="$out/widgets-$widgets.payload.json"
dotnet "$payload_dll" --widgets "$widgets" --seed 1 --out "$payload"

# Only the servers write the map, and run their compiled code from memory perf can name: without these two perf names
# managed code by address alone.
export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
listing="$out/$strategy.jit.txt"
jit=()
[ -z "$annotate" ] || jit=(DOTNET_JitDisasm="*$annotate" DOTNET_JitDisasmWithCodeBytes=1 DOTNET_JitStdOutFile="$listing")
start_floor_and_server "$out" "$strategy" "${jit[@]}"
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
# Where the strategy's server (the worker, under the test host) maps its compiled code for perf; it stays after the
# server exits.
code_map=/tmp/perf-$strategy_signer_pid.map

# Drives $1 for $2 seconds and prints the requests wrk counted (drive_signing, which fails when a request was not
# signed, naming server $3).
drive() {
  local line
  line=$(drive_signing "$1" "$2" "$payload" "$connections" "$3") || return 1
  sed -nE 's/^\{.*"requests":([0-9]+),.*/\1/p' <<<"$line"
}

# Prints perf's report of $1 by library: one line per library, its samples first, largest first.
libraries() {
  perf report -i "$1" --stdio --no-children --sort dso -g none --show-nr-samples 2>/dev/null | awk '/^ +[0-9]/'
}

# Prints the 8 largest of libraries' lines $1, each as its share of $2 microseconds ($3 samples in all).
by_library() {
  awk -v total="$3" -v us="$2" 'n++ < 8 { s = $2; $1 = ""; $2 = ""; printf "  %8.1f %s\n", s / total * us, substr($0, 3, 150) }' <<<"$1"
}

# Writes perf's samples in $1 by symbol, each as its share of $2 microseconds ($3 samples in all), one "us<TAB>name"
# line each: the thread in a managed symbol's name left out, so that both servers name a method alike, and a library's
# samples without a symbol (OpenSSL's) summed under the library's name.
by_symbol() {
  perf report -i "$1" --stdio --no-children --sort dso,sym -g none --show-nr-samples 2>/dev/null |
    awk -v total="$3" -v us="$2" '/^ +[0-9]/ {
      s = $2; dso = $3; $1 = ""; $2 = ""; name = substr($0, 3); sub(/ tid [0-9]+/, "", name); gsub(/  +/, " ", name)
      if ($NF ~ /^0x[0-9a-f]+$/) name = dso " (no symbol)"
      sum[name] += s } END { for (name in sum) printf "%.3f\t%s\n", sum[name] / total * us, name }'
}

# Prints the $3 symbols whose microseconds per request differ most between the strategy's by_symbol list $2 and the
# floor's $1, the strategy's less the floor's, largest first, and the difference over all of them: where the time
# beyond the floor goes, the long tail of small items included.
beyond_floor() {
  local differences
  differences=$(awk -F '\t' 'FNR == NR { floor[$2] = $1; next } { mine[$2] = $1 }
    END {
      for (name in floor) if (!(name in mine)) mine[name] = 0
      for (name in mine) printf "%.3f\t%.1f\t%.1f\t%s\n", mine[name] - floor[name], mine[name], floor[name], name
    }' "$1" "$2" | sort -t "$(printf '\t')" -k1,1gr)
  awk -F '\t' '{ all += $1 }
    END { printf "  %8.1f in all (the strategy less the floor; then each symbol: the difference, the strategy, the floor)\n", all }' \
    <<<"$differences"
  head -n "$3" <<<"$differences" | awk -F '\t' '{ printf "  %8.1f %8.1f %8.1f %s\n", $1, $2, $3, substr($4, 1, 140) }'
}

# Prints, for perf data $1 of the strategy's server, each block of $annotate's optimized code with its share of the
# method's samples and of $2 microseconds (the samples of the whole process being $3), and writes the annotated
# listing to $4. The code is the last optimized version the runtime's map names, and the listing the JIT's last Tier-1
# one of the method: they must be the same length, or the script says so and stops. Run after the server has exited.
annotate_method() {
  [ -s "$listing" ] || { echo "The JIT wrote no listing of $annotate to $listing." >&2; exit 1; }
  local name=${annotate/:/::}\( code base size
  code=$(awk -v name="$name" 'index($0, name) && /\[OptimizedTier1\]$/ { found = $1 " " $2 } END { print found }' "$code_map")
  [ -n "$code" ] || { echo "The runtime compiled no optimized code of $annotate (yet): a longer --warmup, or another method." >&2; exit 1; }
  read -r base size <<<"$code"
  perf script -i "$1" -F ip 2>/dev/null |
    awk -v base="$base" -v size="$size" -v us="$2" -v all="$3" -v out="$4" -v method="$annotate" '
      function hex(text,   i, n) { n = 0; text = tolower(text); sub(/^0x/, "", text)
        for (i = 1; i <= length(text); i++) n = n * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1; return n }
      BEGIN { start = hex(base); bytes = hex(size) }
      # The listing: the last Tier-1 one of the method, each instruction at its offset, the blocks in order.
      FNR == NR {
        if (index($0, "; Assembly listing for method ")) { take = index($0, method "(") && index($0, "(Tier1)"); if (take) { n = 0; blocks = 0 } next }
        if (!take) next
        if (match($0, /^G_M[0-9]+_IG[0-9]+:/)) { block = substr($0, 1, RLENGTH - 1); at = hex(substr($0, index($0, "offset=") + 7)); order[++blocks] = block; next }
        if ($0 ~ /^       [0-9A-F]+ +[a-z]/) { n++; offset[n] = at; owner[n] = block; text[n] = $0; sub(/^ +[0-9A-F]+ +/, "", text[n]); at += length($1) / 2 }
        next
      }
      { ip = hex($1) - start; if (ip >= 0 && ip < bytes) samples[ip]++ }
      END {
        if (n == 0 || at != bytes) { printf "The JIT listing of %s (%d bytes) is not the code perf sampled (%d bytes).\n", method, at, bytes > "/dev/stderr"; exit 1 }
        for (ip in samples) { i = 1; while (i < n && offset[i + 1] <= ip + 0) i++; hits[i] += samples[ip]; inside += samples[ip] }
        if (inside == 0) { print "perf recorded no sample in " method "." > "/dev/stderr"; exit 1 }
        printf "  %s: %.1f us a request, %d samples; by block of the JIT listing (share of the method, us a request)\n", method, inside / all * us, inside
        # Each block named by its mnemonics too, which say what it does (a pdep and four tzcnt: the closing quotes).
        for (i = 1; i <= n; i++) { share[owner[i]] += hits[i]; count[owner[i]]++; split(text[i], word, " "); mnemonics[owner[i]] = mnemonics[owner[i]] " " word[1] }
        for (b = 1; b <= blocks; b++) if (share[order[b]] / inside >= 0.01)
          printf "  %5.1f%% %7.1f  %-13s %3d instructions:%s\n", share[order[b]] / inside * 100, share[order[b]] / all * us, order[b], count[order[b]], substr(mnemonics[order[b]], 1, 80)
        for (i = 1; i <= n; i++) {
          if (owner[i] != owner[i - 1]) printf "%s: %.1f%%\n", owner[i], share[owner[i]] / inside * 100 > out
          printf "  %5x %5.1f%%  %s\n", offset[i], hits[i] / inside * 100, text[i] > out
        }
      }' "$listing" -
}

annotations=()
echo "== processor: $(machine_description)"
echo "== $widgets widgets, $connections connections: ${warmup} s of warm-up each, then $rounds rounds of ${seconds} s under perf on the floor and on $strategy ($(host_description))"
drive "$floor_url/api/sign" "$warmup" "The floor" >/dev/null
drive "$strategy_url/api/sign?strategy=$strategy" "$warmup" "$strategy" >/dev/null

for round in $(seq "$rounds"); do
  for who in floor "$strategy"; do
    if [ "$who" = floor ]; then url="$floor_url/api/sign" pid=$floor_pid; else url="$strategy_url/api/sign?strategy=$strategy" pid=$strategy_signer_pid; fi
    data="$out/$who.$round.perf.data"
    # perf stops a moment before wrk does, so that every sample falls within the drive.
    perf record -F 1999 -p "$pid" -o "$data" -- sleep $((seconds - 1)) >/dev/null 2>&1 &
    recorder=$!
    # The system calls over the same second less, counted by the kernel's tracepoints, which need no hardware counter.
    # A kernel without them leaves the count out of the line, and the profile goes on.
    rm -f "$data.calls"
    { perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_recvfrom -p "$pid" -o "$data.calls" -- sleep $((seconds - 1)) >/dev/null 2>&1 || true; } &
    counter=$!
    read -r before _ < <(processor_ticks "$pid")
    requests=$(drive "$url" "$seconds" "$who")
    read -r after _ < <(processor_ticks "$pid")
    wait "$recorder" "$counter"
    [ "${requests:-0}" -gt 0 ] || { echo "Round $round: $who answered no request." >&2; exit 1; }
    us=$(awk -v t=$((after - before)) -v r="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / r }')
    # Each count over the requests of the seconds it covers, as if they came at an even rate.
    calls="no count of system calls (perf could not read the kernel's tracepoints)"
    if grep -qE '^[0-9]+,[^,]*,raw_syscalls:sys_enter,' "$data.calls" 2>/dev/null; then
      calls=$(awk -F, -v r="$requests" -v covered=$((seconds - 1)) -v s="$seconds" '
        $3 ~ /sys_enter$/ { all = $1 } $3 ~ /recvfrom$/ { receives = $1 }
        END { n = r * covered / s; printf "%.1f system calls (%.1f receives)", all / n, receives / n }' "$data.calls")
    fi
    echo "== round $round, $who: $requests requests, $us us of processor time and $calls each; by library, then by symbol"
    by_dso=$(libraries "$data")
    samples=$(awk '{ s += $2 } END { print s + 0 }' <<<"$by_dso")
    [ "$samples" -gt 0 ] || { echo "Round $round: perf recorded no sample of $who." >&2; exit 1; }
    by_library "$by_dso" "$us" "$samples"
    by_symbol "$data" "$us" "$samples" >"$out/$who.$round.symbols.tsv"
    sort -t "$(printf '\t')" -k1,1gr "$out/$who.$round.symbols.tsv" |
      awk -F '\t' -v top="$top" '$2 !~ / \(no symbol\)$/ && n++ < top { printf "  %8.1f %s\n", $1, substr($2, 1, 150) }'
    if [ -n "$annotate" ] && [ "$who" != floor ]; then
      annotations+=("$round $us $samples")
    fi
  done
  echo "== round $round, $strategy beyond the floor: us a request, by symbol"
  beyond_floor "$out/floor.$round.symbols.tsv" "$out/$strategy.$round.symbols.tsv" "$top"
done

# The JIT writes its listing out as the server exits, so the method's code is read after both servers stop.
if [ -n "$annotate" ]; then
  stop_floor_and_server
  for annotation in "${annotations[@]}"; do
    read -r round us samples <<<"$annotation"
    echo "== round $round, $strategy: where $annotate's time goes"
    annotate_method "$out/$strategy.$round.perf.data" "$us" "$samples" "$out/$strategy.$round.annotated.txt"
  done
fi
