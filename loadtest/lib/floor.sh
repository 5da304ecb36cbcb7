# Shared by the local load scripts (sourced after server.sh, not run): build and start the wire floor
# (bench/Signing.WireFloor), the least any signing request can cost over HTTP, so that a load run drives it with the
# same wrk script, duration and connections as each strategy and prints every strategy's ratio to it.
#
# start_floor sets the same server_pid and base_url as start_server, so stop_server (and the EXIT trap that calls it)
# stops the floor too. The floor has no /api/stats; read_floor_cpu takes the one figure the table needs from it, its
# processor time, from /proc. The floor is started as SigningServer is: Release, Production, a key made for this run, on a
# free loopback port, logging at Warning; its Kestrel limits and server GC are SigningServer's by construction.

floor_dir=

# Builds the floor in Release and sets floor_dir, where start_floor runs it from. Run from the repository's root.
build_floor() {
  dotnet build bench/Signing.WireFloor/Signing.WireFloor.csproj -c Release -v quiet -nologo
  floor_dir=bench/Signing.WireFloor/bin/Release/net10.0
}

# Starts the floor on a free loopback port, writing its output to $1, and waits for Kestrel's "Now listening on:".
start_floor() {
  local log=$1
  local key
  key=$(head -c 32 /dev/urandom | base64)
  : >"$log"
  (cd "$floor_dir" && exec env Signing__Key="$key" ASPNETCORE_ENVIRONMENT=Production \
    dotnet Signing.WireFloor.dll --urls http://127.0.0.1:0) >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 300); do
    base_url=$(sed -n 's#.*Now listening on: \(http://127\.0\.0\.1:[0-9][0-9]*\).*#\1#p' "$log" | head -n 1)
    [ -n "$base_url" ] && return 0
    if ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$log" >&2
      echo "The wire floor exited before it listened." >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "The wire floor did not listen within 60 s; its log is $log." >&2
  exit 1
}

# Writes the floor's processor time so far to $1 as {"cpuSeconds": N}, from /proc/PID/stat (user and system time, in
# clock ticks), the figure /api/stats gives for SigningServer.
read_floor_cpu() {
  local ticks
  ticks=$(awk '{ print $14 + $15 }' "/proc/$server_pid/stat")
  awk -v ticks="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "{\"cpuSeconds\":%.2f}\n", ticks / hz }' >"$1"
}
