# Shared by the local load scripts (sourced, not run): start and stop one server on a free loopback port and read its
# /api/stats. Used by run-local.sh, soak.sh, memory.sh and request-allocation.sh, so all of them build, start, measure
# and stop the server in the same way, in either host:
#   --host server     SigningServer, the endpoint on plain ASP.NET Core (the default);
#   --host functions  the published Azure Functions worker, started and fed by tests/SigningFunctions.TestHost, which
#                     speaks the Functions host's gRPC protocol and forwards each request to the worker's Kestrel as
#                     the host does. Everything measured (/api/stats, resident memory) is the worker's own process.
#
# The sourcing script takes --host into $host and calls check_host, then build_release (which sets server_dir, the
# Release output the server runs from) and installs
#   trap stop_server EXIT
# so the server it started is stopped however it ends. start_server sets server_pid (the process it started),
# signer_pid (the process that signs: the same for SigningServer, the worker for the Functions host) and base_url.

host=${host:-server}
server_pid=
signer_pid=
base_url=

# Refuses a --host that is neither host, before anything is built.
check_host() {
  case "$host" in
    server | functions) ;;
    *) echo "--host is 'server' or 'functions', not '$host'." >&2; exit 2 ;;
  esac
}

# What the tables say ran: the host and the collector its runtime config gives, unless the environment overrides it.
host_description() {
  case "$host" in
    server) echo "SigningServer" ;;
    functions) echo "Functions worker (published, under tests/SigningFunctions.TestHost)" ;;
  esac
}

# The processor the figures come from, in one line. A ratio between two servers moves with it: on the same code,
# `transcode` served 0.89 of the wire floor on an AVX-512 processor and 0.82 on an AVX2-only one, whose checks slowed
# far more than the floor's HMAC (docs/floor-history.md, "On another processor"), so every table names its processor.
machine_description() {
  if [ ! -r /proc/cpuinfo ]; then
    echo "$(uname -m), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') processors"
    return
  fi
  awk -F'\t*: ' '
    $1 == "model name" && !model { model = $2 }
    $1 == "cpu family" && !family { family = $2 }
    $1 == "model" && !number { number = $2 }
    $1 == "flags" && !flags { flags = " " $2 " " }
    $1 == "processor" { processors++ }
    END {
      vectors = index(flags, " avx512f ") ? "AVX-512" : index(flags, " avx2 ") ? "AVX2 without AVX-512" : "no AVX2"
      printf "%s (family %s, model %s), %d processors, %s%s\n", model, family, number, processors, vectors,
        index(flags, " sha_ni ") ? ", SHA-NI" : ""
    }' /proc/cpuinfo
}

# Builds the host and the payload generator in Release, and sets server_dir (where start_server runs the server
# from) and payload_dll (the generator, run with dotnet). For the Functions host it publishes the worker, as a
# deployment does, to worker_dir. Run from the repository's root.
build_release() {
  if [ "$host" = functions ]; then
    worker_dir=$PWD/artifacts/functions-worker
    dotnet publish src/SigningFunctions/SigningFunctions.csproj -c Release -o "$worker_dir" -v quiet -nologo
    dotnet build tests/SigningFunctions.TestHost/SigningFunctions.TestHost.csproj -c Release -v quiet -nologo
    server_dir=tests/SigningFunctions.TestHost/bin/Release/net10.0
  else
    dotnet build src/SigningServer/SigningServer.csproj -c Release -v quiet -nologo
    server_dir=src/SigningServer/bin/Release/net10.0
  fi
  dotnet build src/Signing.Payload/Signing.Payload.csproj -c Release -v quiet -nologo
  payload_dll=$PWD/src/Signing.Payload/bin/Release/net10.0/Signing.Payload.dll
}

# Stops the server started by start_server, politely and then not, within about 10 s.
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.2
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      # Still up after 10 s: its children (the worker, under the test host) would outlive a kill -9 of it alone.
      pkill -9 -P "$server_pid" 2>/dev/null || true
      kill -9 "$server_pid" 2>/dev/null || true
    fi
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    signer_pid=
  fi
}

# Starts the host on a free loopback port with a key made for this run, writing its output to $1. Any further
# arguments are NAME=VALUE pairs added to the server's environment after the defaults, so they override them (a fixed
# Signing__Key, DOTNET_GCHeapHardLimit, Signing__MaxRequestBodyBytes). The test host passes its environment on to the
# worker, as the Functions host passes app settings, so the same pairs reach the worker.
start_server() {
  local log=$1
  shift
  local command=(dotnet SigningServer.dll)
  [ "$host" = functions ] && command=(dotnet SigningFunctions.TestHost.dll --worker "$worker_dir")
  # The per-request Information events (Signed, SignRejected) are off while measuring: a log line per request is the
  # logger's cost, not the strategy's, and docs/load-test.md was measured without them. So are ASP.NET Core's, as
  # SigningServer's appsettings.json has them; the worker has no such file and would otherwise send the test host
  # (which prints them) a few lines per request.
  start_process "$server_dir" "$(host_description)" "$log" Signing__Key="$(new_key)" ASPNETCORE_ENVIRONMENT=Production \
    Logging__LogLevel__Signing.Http=Warning Logging__LogLevel__Microsoft.AspNetCore=Warning "$@" "${command[@]}" --urls http://127.0.0.1:0
  # The worker is the test host's child; the test host listens only once the worker has loaded its functions.
  if [ "$host" = functions ]; then
    signer_pid=$(pgrep -P "$server_pid" -f SigningFunctions.dll | head -n 1)
  fi
}

# A signing key made for one run, base64.
new_key() {
  head -c 32 /dev/urandom | base64
}

# Runs `env ARGS…` (NAME=VALUE pairs, then the command) in folder $1 with its output in $3, and waits for Kestrel's
# "Now listening on:" line; $2 names the process in errors. Sets server_pid, signer_pid (the same process) and
# base_url. Used by start_server and by floor.sh's start_floor.
start_process() {
  local dir=$1 name=$2 log=$3
  shift 3
  # Created here, not by the background redirection, so that the wait below can read it at once: on a busy machine the
  # first read came before the subshell had made the file, and under pipefail that ended the script.
  : >"$log"
  # exec keeps the subshell's process id, so server_pid is the process itself.
  (cd "$dir" && exec env "$@") >"$log" 2>&1 &
  server_pid=$!
  signer_pid=$server_pid
  for _ in $(seq 300); do
    base_url=$(sed -n 's#.*Now listening on: \(http://127\.0\.0\.1:[0-9][0-9]*\).*#\1#p' "$log" | head -n 1)
    [ -n "$base_url" ] && return 0
    if ! kill -0 "$server_pid" 2>/dev/null; then
      cat "$log" >&2
      echo "$name exited before it listened." >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "$name did not listen within 60 s; its log is $log." >&2
  exit 1
}

# Writes one /api/stats snapshot to $1 (or stdout), bounded in time.
read_stats() {
  curl -fsS --max-time 10 "$base_url/api/stats" >"${1:-/dev/stdout}"
}

# Posts file $3 to URL $1 for $2 seconds on $4 connections with wrk and loadtest/local/sign.lua, bounded by timeout in
# case it hangs, and prints wrk's report, whose line that starts with "{" is sign.lua's summary.
wrk_sign() {
  timeout $(($2 + 30)) wrk -t1 -c "$4" -d "${2}s" --timeout 10s -s loadtest/local/sign.lua "$1" -- "$3"
}

# Installs wrk from Debian's packages when missing, as root or through sudo where it asks for no password (GitHub's
# runners: their user is not root, and wrk is not on them); otherwise says how and fails. Another apt
# (unattended upgrades, a parallel build) may hold apt's locks: DPkg::Lock::Timeout makes apt wait for dpkg's own
# locks, but apt 2.6 ignores it for the package lists' lock (update) and the download cache's lock (install) and fails
# at once ("Could not get lock /var/lib/apt/lists/lock"; tried 25 November 2026 with a held lock). So each command is
# also tried again while apt says a lock is held, for 300 s in all, and any other failure is shown and ends the script.
require_wrk() {
  if ! command -v wrk >/dev/null; then
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
    if command -v apt-get >/dev/null && { [ ${#as_root[@]} -eq 0 ] || sudo -n true 2>/dev/null; }; then
      echo "Installing wrk from Debian's packages (${as_root[*]:+${as_root[*]} }apt-get install wrk)."
      local deadline=$((SECONDS + 300)) errors args
      errors=$(mktemp)
      for args in "update -qq" "install -y -qq wrk"; do
        # shellcheck disable=SC2086 # $args is two or three words on purpose.
        until ${as_root[@]+"${as_root[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 $args >/dev/null 2>"$errors"; do
          if ! grep -q 'Could not get lock' "$errors" || [ "$SECONDS" -ge "$deadline" ]; then
            cat "$errors" >&2
            echo "apt-get $args failed; install wrk by hand (apt-get install wrk) and run again." >&2
            exit 1
          fi
          echo "Another apt holds its lock; apt-get ${args%% *} waits and tries again (300 s at most)."
          sleep 5
        done
      done
      rm -f "$errors"
    else
      echo "This script needs wrk: sudo apt-get install wrk" >&2
      exit 2
    fi
  fi
}
