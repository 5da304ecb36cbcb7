# Shared by the local load scripts (sourced after server.sh, not run): build and start the wire floor
# (bench/Signing.WireFloor), the least any signing request can cost over HTTP, so that a load run drives it with the
# same wrk script, duration and connections as each strategy and prints every strategy's ratio to it.
#
# start_floor sets the same server_pid and base_url as start_server (through server.sh's start_process), so stop_server (and the EXIT trap that calls it)
# stops the floor too. The floor has no /api/stats; read_floor_cpu takes the one figure the table needs from it, its
# processor time, from /proc. The floor is started as SigningServer is: Release, Production, a key made for this run, on a
# free loopback port, logging at Warning; its Kestrel limits and server GC are SigningServer's by construction.

floor_dir=
baseline_dir=

# Builds the floor in Release and sets floor_dir, where start_floor runs it from. Run from the repository's root.
build_floor() {
  dotnet build bench/Signing.WireFloor/Signing.WireFloor.csproj -c Release -v quiet -nologo
  floor_dir=bench/Signing.WireFloor/bin/Release/net10.0
}

# Builds SigningServer in Release in checkout $1 and sets baseline_dir, so that start_floor starts that server in the
# floor's place (floor-rounds.sh --baseline).
build_baseline() {
  dotnet build "$1/src/SigningServer/SigningServer.csproj" -c Release -v quiet -nologo
  baseline_dir=$(cd "$1/src/SigningServer/bin/Release/net10.0" && pwd)
}

# Starts the floor (or the baseline's SigningServer, started as start_server starts this one) on a free loopback port,
# writing its output to $1, and waits for Kestrel's "Now listening on:".
start_floor() {
  if [ -n "$baseline_dir" ]; then
    local own_dir=$server_dir
    server_dir=$baseline_dir
    start_server "$1"
    server_dir=$own_dir
    return
  fi
  start_process "$floor_dir" "The wire floor" "$1" Signing__Key="$(new_key)" ASPNETCORE_ENVIRONMENT=Production \
    dotnet Signing.WireFloor.dll --urls http://127.0.0.1:0
}

# Prints the processor time process $1 has used so far, in clock ticks, as "all user": user and system time together,
# then user time alone (from /proc/PID/stat).
processor_ticks() {
  awk '{ print $14 + $15, $14 }' "/proc/$1/stat"
}

# Writes the floor's processor time so far to $1 as {"cpuSeconds": N}, the figure /api/stats gives for SigningServer.
read_floor_cpu() {
  local ticks
  read -r ticks _ < <(processor_ticks "$server_pid")
  awk -v ticks="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "{\"cpuSeconds\":%.2f}\n", ticks / hz }' >"$1"
}

# Drives URL $1 for $2 seconds with wrk (wrk_sign, posting file $3 on $4 connections) and prints sign.lua's summary
# line; fails, with a line naming server $5, when any request was answered with a status of 400 or more or
# ended in a socket error: a refused request costs a server less than a signed one, so a ratio over refusals would
# look fast and measure nothing.
drive_signing() {
  local line requests refused broken
  line=$(wrk_sign "$1" "$2" "$3" "$4" | grep '^{') || true
  read -r requests refused broken < <(sed -nE 's/.*"requests":([0-9]+),.*"non2xx":([0-9]+),"socketErrors":([0-9]+).*/\1 \2 \3/p' <<<"$line")
  if [ -z "$requests" ]; then
    echo "$5: wrk printed no summary for $1." >&2
    return 1
  fi
  if [ "$refused" -ne 0 ] || [ "$broken" -ne 0 ]; then
    echo "$5: of $requests requests, $refused were answered with 400 or more and $broken ended in a socket error ($1); every request must be signed for its cost to count." >&2
    return 1
  fi
  echo "$line"
}

floor_pid=
floor_url=
strategy_pid=
strategy_signer_pid=
strategy_url=

# Starts the floor and SigningServer side by side (floor-rounds.sh, floor-profile.sh), with their logs in directory $1
# (SigningServer's named after strategy $2), and stops both however the script ends; any further arguments are
# NAME=value settings for SigningServer alone. Sets floor_pid, floor_url, strategy_pid (the process started, which
# stop_floor_and_server stops), strategy_signer_pid (the one that signs: the worker under --host functions) and
# strategy_url.
start_floor_and_server() {
  trap stop_floor_and_server EXIT
  trap 'exit 130' INT TERM
  local reference=floor
  [ -z "$baseline_dir" ] || reference=baseline
  start_floor "$1/$reference.server.log"
  floor_pid=$server_pid floor_url=$base_url
  start_server "$1/$2.server.log" "${@:3}"
  strategy_pid=$server_pid strategy_signer_pid=$signer_pid strategy_url=$base_url
}

stop_floor_and_server() {
  # A server whose start failed (it never listened) has no name of its own yet: it is still server_pid.
  [ "$server_pid" = "$floor_pid" ] || [ "$server_pid" = "$strategy_pid" ] || stop_server
  server_pid=$floor_pid
  stop_server
  server_pid=$strategy_pid
  stop_server
  # Stopped once: the EXIT trap, after a script's own call, finds nothing to stop.
  floor_pid= strategy_pid= strategy_signer_pid=
}
