-- wrk script for loadtest/run-local.sh: POSTs one payload file to the URL wrk was given, and prints wrk's summary as
-- one JSON line for loadtest/local/report.js.
-- Usage: wrk [options] -s sign.lua 'http://127.0.0.1:PORT/api/sign?strategy=NAME' -- PAYLOAD_FILE

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

-- Runs in each thread before its first request; wrk builds the request (with Content-Length) after it.
function init(args)
  local file = assert(io.open(args[1], "rb"), "usage: wrk ... -s sign.lua URL -- PAYLOAD_FILE")
  wrk.body = file:read("*a")
  file:close()
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationMicroseconds":%d,"p50Microseconds":%d,"p90Microseconds":%d,"p99Microseconds":%d,"non2xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
