// @ts-check
// Compares the signing strategies under load, one after another, against a running SigningServer or Functions app.
// See docs/load-test.md. Usually started through loadtest/k6/run.sh, which generates the payload and, for
// STRATEGIES=all, asks the server for its strategy names (k6 cannot make a request before the test is planned).
//
// Environment:
//   BASE_URL      default http://localhost:7071 (what both SigningServer and 'func start' listen on)
//   FUNCTION_KEY  sent as x-functions-key when set (Azure: a host key, as /api/stats is a function of its own)
//   STRATEGIES    comma-separated names, required here (run.sh turns 'all' into the server's list)
//   RATE          requests per second for each strategy, default 10
//   DURATION      measured time per strategy, default 60s; WARMUP (default 15s) runs before it and is not counted
//   GAP           pause after each strategy, default 10s, so the last requests finish before the next one starts
//   WIDGETS       widgets in the payload, default 3000; PAYLOAD is its file, default ./widgets-WIDGETS.payload.json
//   MAX_VUS       most virtual users a strategy may use, default 20 × RATE; more means the server fell behind
//   P99_MS        optional bound on each strategy's p(99) in milliseconds
//   SUMMARY_DIR   where the table is written (load-test-WIDGETS.md and .json), default the current directory
//
// The server's columns come from /api/stats, one process's snapshot. When the app has scaled out, the reads may reach
// different instances, or one instance may serve only part of a run: the script then leaves those columns empty and
// says so, pointing at the Application Insights workbook, which adds up every instance (docs/deploy.md).

import http from 'k6/http';
import { check, sleep } from 'k6';
import { Gauge } from 'k6/metrics';
import { textSummary } from 'https://jslib.k6.io/k6-summary/0.1.0/index.js';
import { describeInstance, describeServer, markdownTable, row, sameProcess, serverDelta, serverDeltaFields, serverDescription } from '../lib/strategy-table.js';

/**
 * The part of k6's end-of-test data this script reads.
 * @typedef {{ metrics: Record<string, { type: string, values: Record<string, number> }> }} SummaryData
 */

const baseUrl = (__ENV.BASE_URL || 'http://localhost:7071').replace(/\/+$/, '');
const widgets = positive('WIDGETS', 3000);
const rate = positive('RATE', 10);
const durationSeconds = seconds('DURATION', '60s');
const warmupSeconds = seconds('WARMUP', '15s');
const gapSeconds = seconds('GAP', '10s');
const maxVUs = positive('MAX_VUS', 20 * rate);
// Strategy names are lowercase (the server ignores case, but answers and counts under the lowercase name).
const strategies = (__ENV.STRATEGIES || '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0);
if (strategies.length === 0 || strategies.includes('all')) {
  throw new Error("Set STRATEGIES to names such as 'string,recyclable', or run loadtest/k6/run.sh, which asks the server for all of them.");
}

const payload = open(__ENV.PAYLOAD || `./widgets-${widgets}.payload.json`, 'b');

/** @type {Record<string, string>} */
const headers = __ENV.FUNCTION_KEY ? { 'x-functions-key': __ENV.FUNCTION_KEY } : {};

// One strategy's turn: warm-up, measured run, gap.
const slotSeconds = warmupSeconds + durationSeconds + gapSeconds;
// A measured run's requests still in flight at its end get this long to finish, and then the server is read again: the
// second reading must come after every measured request has ended, or its counts would miss the last of them.
const drainSeconds = gapSeconds / 2;

// What the server did during each measured run, one gauge per ServerDelta field, tagged with the strategy.
const serverGauges = Object.fromEntries(serverDeltaFields.map((field) => [field, new Gauge(serverMetricName(field))]));
const gcServer = new Gauge('server_gc_server');
const gcConcurrent = new Gauge('server_gc_concurrent');
const processorCount = new Gauge('server_processor_count');
// 1 when the stats read before and after a strategy's run came from different processes (another instance answered).
const instanceChanged = new Gauge('server_instance_changed');

// Where to compare strategies once the app has scaled out: every instance's metrics, added up.
const aggregatedView = "the Application Insights workbook 'Signing strategies under load' (docs/deploy.md)";

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    ...Object.fromEntries(strategies.flatMap((strategy, i) => [
      [`warmup_${strategy}`, signScenario(strategy, 'warmup', i * slotSeconds, warmupSeconds, gapSeconds)],
      // In-flight requests may finish in the first half of the gap, before the second reading of the server.
      [strategy, signScenario(strategy, 'measure', i * slotSeconds + warmupSeconds, durationSeconds, drainSeconds)],
    ])),
    stats: {
      executor: 'per-vu-iterations',
      exec: 'observe',
      vus: 1,
      iterations: 1,
      maxDuration: `${strategies.length * slotSeconds + 60}s`,
      tags: { phase: 'stats' },
    },
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(99)', 'max'],
  thresholds: Object.fromEntries(strategies.flatMap((strategy) => [
    [`http_req_failed{scenario:${strategy}}`, ['rate==0']],
    [`checks{scenario:${strategy}}`, ['rate==1']],
    [`dropped_iterations{scenario:${strategy}}`, ['count==0']],
    // A sub-metric exists, in the summary and in handleSummary's data, only when a threshold names it; without a
    // bound to enforce, this one asks for nothing but that.
    [`http_req_duration{scenario:${strategy}}`, [__ENV.P99_MS ? `p(99)<${Number(__ENV.P99_MS)}` : 'p(99)>=0']],
    [`http_reqs{scenario:${strategy}}`, ['count>0']],
    [`server_instance_changed{strategy:${strategy}}`, ['value>=0']],
    [`${serverMetricName('errors')}{strategy:${strategy}}`, ['value==0']],
    ...serverDeltaFields.filter((f) => f !== 'errors').map((field) => [`${serverMetricName(field)}{strategy:${strategy}}`, ['value>=0']]),
  ])),
};

/** Each iteration of a strategy's scenarios: one signed envelope, tagged with its strategy. */
export function sign() {
  const strategy = __ENV.STRATEGY;
  const response = http.post(`${baseUrl}/api/sign?strategy=${encodeURIComponent(strategy)}`, payload, {
    headers: { ...headers, 'Content-Type': 'application/json' },
    tags: { strategy, name: 'sign' },
  });
  check(response, {
    'status is 200': (r) => r.status === 200,
    'every widget signed by the strategy asked for': (r) => r.status === 200 && r.json('widgetCount') === widgets && r.json('strategy') === strategy,
  }, { strategy });
}

/**
 * The one iteration of the stats scenario: reads /api/stats as each measured run starts and once its last requests
 * have finished, and turns the two readings into that strategy's server-side numbers.
 */
export function observe() {
  const started = Date.now();
  strategies.forEach((strategy, i) => {
    const measureStart = i * slotSeconds + warmupSeconds;
    sleepUntil(started, measureStart);
    const before = readStats();
    sleepUntil(started, measureStart + durationSeconds + drainSeconds);
    const after = readStats();
    // Under scale-out the two reads may reach different instances; subtracting one process's counters from
    // another's would print numbers that mean nothing, so the run keeps no server numbers for this strategy.
    const same = sameProcess(before, after);
    instanceChanged.add(same ? 0 : 1, { strategy });
    if (!same) {
      console.warn(`${strategy}: /api/stats was answered by ${describeInstance(before)} before the run and by ${describeInstance(after)} after it.`);
      return;
    }
    const delta = serverDelta(before, after, strategy);
    for (const field of serverDeltaFields) {
      serverGauges[field].add(delta[field], { strategy });
    }

    const server = serverDescription(after);
    gcServer.add(server.server ? 1 : 0);
    gcConcurrent.add(server.concurrent ? 1 : 0);
    processorCount.add(server.processorCount);
  });
}

/**
 * k6's own summary, with this script's per-strategy table after it, and the table as Markdown and JSON files.
 * @param {SummaryData} data
 */
export function handleSummary(data) {
  /** @type {string[]} */
  const warnings = [];
  const rows = strategies.map((strategy) => {
    const client = clientResult(data, strategy);
    return row(strategy, client, serverResult(data, strategy, client, warnings));
  });
  const server = {
    server: gauge(data, 'server_gc_server') === 1,
    concurrent: gauge(data, 'server_gc_concurrent') === 1,
    processorCount: gauge(data, 'server_processor_count'),
  };
  const title = `k6 against ${baseUrl}: ${widgets} widgets, ${rate} requests/s for ${durationSeconds} s per strategy after ${warmupSeconds} s of warm-up; ${describeServer(server)}`;
  const table = markdownTable(title, rows);
  const directory = (__ENV.SUMMARY_DIR || '.').replace(/\/+$/, '');

  // The server gauges are inputs to the table, which shows them better; only their errors threshold stays in view.
  const shown = Object.fromEntries(Object.entries(data.metrics).filter(([name]) => !name.startsWith('server_') || name.startsWith(serverMetricName('errors'))));
  const warning = warnings.length === 0 ? '' : `\n${warnings.map((w) => `WARNING: ${w}`).join('\n')}\n`;
  return {
    stdout: `${textSummary({ ...data, metrics: shown }, { indent: ' ', enableColors: true })}\n\n${table}${warning}\n`,
    [`${directory}/load-test-${widgets}.md`]: `${table}${warning}`,
    [`${directory}/load-test-${widgets}.json`]: JSON.stringify({ title, baseUrl, widgets, rate, durationSeconds, warmupSeconds, rows, warnings }, null, 2),
  };
}

/**
 * @param {string} strategy
 * @param {'warmup' | 'measure'} phase
 * @param {number} startSeconds
 * @param {number} runSeconds
 * @param {number} gracefulStopSeconds
 * @returns {import('k6/options').Scenario}
 */
function signScenario(strategy, phase, startSeconds, runSeconds, gracefulStopSeconds) {
  return {
    executor: 'constant-arrival-rate',
    exec: 'sign',
    rate,
    timeUnit: '1s',
    duration: `${runSeconds}s`,
    startTime: `${startSeconds}s`,
    gracefulStop: `${gracefulStopSeconds}s`,
    preAllocatedVUs: Math.min(maxVUs, Math.max(2, Math.ceil(rate))),
    maxVUs,
    env: { STRATEGY: strategy },
    tags: { strategy, phase },
  };
}

/**
 * @param {SummaryData} data
 * @param {string} strategy
 * @returns {import('../lib/strategy-table.js').ClientResult}
 */
function clientResult(data, strategy) {
  const duration = data.metrics[`http_req_duration{scenario:${strategy}}`]?.values ?? {};
  return {
    requests: data.metrics[`http_reqs{scenario:${strategy}}`]?.values.count ?? 0,
    seconds: durationSeconds,
    p50Ms: duration.med ?? 0,
    p90Ms: duration['p(90)'] ?? 0,
    p99Ms: duration['p(99)'] ?? 0,
    // A Rate counts the requests that failed as its passes.
    errors: data.metrics[`http_req_failed{scenario:${strategy}}`]?.values.passes ?? 0,
  };
}

/**
 * The server's side of a strategy's run, or null (with a warning saying why) when the stats read around it cannot
 * stand for the whole run: they were never read, they came from two different processes, or the process that
 * answered served fewer of the run's requests than k6 completed, so other instances served the rest.
 * @param {SummaryData} data
 * @param {string} strategy
 * @param {import('../lib/strategy-table.js').ClientResult} client
 * @param {string[]} warnings
 * @returns {import('../lib/strategy-table.js').ServerDelta | null}
 */
function serverResult(data, strategy, client, warnings) {
  const changed = data.metrics[`server_instance_changed{strategy:${strategy}}`]?.values.value;
  if (changed === undefined) {
    warnings.push(`${strategy}: /api/stats could not be read around the run, so the table has no server numbers for it.`);
    return null;
  }
  if (changed === 1) {
    warnings.push(`${strategy}: /api/stats was answered by different instances before and after the run (see the log above), so the table leaves out the server numbers: one process's counters minus another's mean nothing. Compare strategies in ${aggregatedView}.`);
    return null;
  }
  const delta = /** @type {import('../lib/strategy-table.js').ServerDelta} */ ({});
  for (const field of serverDeltaFields) {
    delta[field] = gauge(data, `${serverMetricName(field)}{strategy:${strategy}}`);
  }
  if (delta.requests < client.requests) {
    warnings.push(`${strategy}: the instance that answered /api/stats served ${delta.requests} of the ${client.requests} requests k6 completed; other instances served the rest, so the table leaves out the server numbers. Compare strategies in ${aggregatedView}.`);
    return null;
  }
  return delta;
}

/**
 * @param {SummaryData} data
 * @param {string} name
 */
function gauge(data, name) {
  return data.metrics[name]?.values.value ?? 0;
}

/** @param {string} field a ServerDelta field, such as processAllocatedBytes */
function serverMetricName(field) {
  return `server_${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/** @returns {import('../lib/strategy-table.js').ServiceStats} */
function readStats() {
  const response = http.get(`${baseUrl}/api/stats`, { headers, tags: { name: 'stats' } });
  if (response.status !== 200) {
    throw new Error(`GET ${baseUrl}/api/stats answered ${response.status}: is FUNCTION_KEY set, and a host key (stats is a function of its own)?`);
  }
  return /** @type {import('../lib/strategy-table.js').ServiceStats} */ (/** @type {unknown} */ (response.json()));
}

/**
 * @param {number} started when the test started, from Date.now()
 * @param {number} offsetSeconds
 */
function sleepUntil(started, offsetSeconds) {
  const wait = started + offsetSeconds * 1000 - Date.now();
  if (wait > 0) {
    sleep(wait / 1000);
  }
}

/**
 * @param {string} name
 * @param {number} fallback
 */
function positive(name, fallback) {
  const value = __ENV[name] === undefined || __ENV[name] === '' ? fallback : Number(__ENV[name]);
  if (!(value > 0)) {
    throw new Error(`${name} must be a positive number, not '${__ENV[name]}'.`);
  }
  return value;
}

/**
 * A k6-style duration (90s, 2m, 1m30s, 500ms) or a plain number of seconds.
 * @param {string} name
 * @param {string} fallback
 */
function seconds(name, fallback) {
  const text = __ENV[name] || fallback;
  if (/^\d+(\.\d+)?$/.test(text)) {
    return Number(text);
  }
  const units = { ms: 0.001, s: 1, m: 60, h: 3600 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new Error(`${name} must be a duration such as 60s or 2m, not '${text}'.`);
  }
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[/** @type {keyof typeof units} */ (p[2])], 0);
}
