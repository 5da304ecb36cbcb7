#!/usr/bin/env bash
# Runs loadtest/k6/sign.js with its inputs in place: generates the payload with the repo's generator, and turns
# STRATEGIES=all (the default) into the names the server lists at /api/stats, which k6 itself cannot ask for before it
# plans the test. Every other setting passes through to the script unchanged (see the top of sign.js).
#
#   BASE_URL=https://APP.azurewebsites.net FUNCTION_KEY=... RATE=20 DURATION=2m loadtest/k6/run.sh
#
# Needs k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/; K6 names another binary), the .NET SDK to generate the
# payload (unless PAYLOAD names one), and curl and jq to ask for the strategies (unless STRATEGIES names them). Against
# Azure, FUNCTION_KEY must open /api/stats too, a function of its own: a host key (docs/deploy.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

export BASE_URL=${BASE_URL:-http://localhost:7071}
export WIDGETS=${WIDGETS:-3000}
k6=${K6:-k6}

# Each tool is asked for only where it is used, so that a run with PAYLOAD and STRATEGIES given needs k6 alone.
require() {
  command -v "$1" >/dev/null || { echo "run.sh needs '$1' on PATH$2." >&2; exit 2; }
}
require "$k6" ""

if [ -z "${PAYLOAD:-}" ]; then
  require dotnet " to generate the payload (or set PAYLOAD to a payload's file)"
  export PAYLOAD="$here/widgets-$WIDGETS.payload.json"
  dotnet run --project "$repo/src/Signing.Payload" -c Release -- --widgets "$WIDGETS" --seed 1 --out "$PAYLOAD"
fi

if [ -z "${STRATEGIES:-}" ] || [ "$STRATEGIES" = all ]; then
  for tool in curl jq; do
    require "$tool" " to ask the server for its strategies (or set STRATEGIES to names)"
  done
  key_header=()
  [ -n "${FUNCTION_KEY:-}" ] && key_header=(-H "x-functions-key: $FUNCTION_KEY")
  # Expanded so that an empty list is no unset variable to bash before 4.4 (macOS's 3.2) under set -u.
  STRATEGIES=$(curl -fsS --max-time 30 ${key_header[@]+"${key_header[@]}"} "${BASE_URL%/}/api/stats" | jq -r '[.strategies[].name] | join(",")')
  export STRATEGIES
fi

echo "Strategies: $STRATEGIES; payload: $PAYLOAD"
exec "$k6" run "$here/sign.js"
