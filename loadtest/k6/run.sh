#!/usr/bin/env bash
# Runs loadtest/k6/sign.js with its inputs in place: generates the payload with the repo's generator, and turns
# STRATEGIES=all (the default) into the names the server lists at /api/stats, which k6 itself cannot ask for before it
# plans the test. Every other setting passes through to the script unchanged (see the top of sign.js).
#
#   BASE_URL=https://APP.azurewebsites.net FUNCTION_KEY=... RATE=20 DURATION=2m loadtest/k6/run.sh
#
# Needs k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/; K6 names another binary), curl, jq and the .NET SDK.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

export BASE_URL=${BASE_URL:-http://localhost:7071}
export WIDGETS=${WIDGETS:-3000}
k6=${K6:-k6}

for tool in "$k6" curl jq dotnet; do
  command -v "$tool" >/dev/null || { echo "run.sh needs '$tool' on PATH." >&2; exit 2; }
done

if [ -z "${PAYLOAD:-}" ]; then
  export PAYLOAD="$here/widgets-$WIDGETS.payload.json"
  dotnet run --project "$repo/src/Signing.Payload" -c Release -- --widgets "$WIDGETS" --seed 1 --out "$PAYLOAD"
fi

if [ -z "${STRATEGIES:-}" ] || [ "$STRATEGIES" = all ]; then
  key_header=()
  [ -n "${FUNCTION_KEY:-}" ] && key_header=(-H "x-functions-key: $FUNCTION_KEY")
  # Expanded so that an empty list is no unset variable to bash before 4.4 (macOS's 3.2) under set -u.
  STRATEGIES=$(curl -fsS --max-time 30 ${key_header[@]+"${key_header[@]}"} "${BASE_URL%/}/api/stats" | jq -r '[.strategies[].name] | join(",")')
  export STRATEGIES
fi

echo "Strategies: $STRATEGIES; payload: $PAYLOAD"
exec "$k6" run "$here/sign.js"
