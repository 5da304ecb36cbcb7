// @ts-check
// Prints and writes the per-strategy table of a local wrk run (loadtest/run-local.sh), from the files that run left
// in one directory: strategies.txt (the names, in order) and, for each name, NAME.before.json and NAME.after.json
// (GET /api/stats around the measured run) and NAME.wrk.json (the line sign.lua printed). The floor, which has no
// stats, leaves its processor time in floor.before.json and floor.after.json instead, and with it every row shows
// its ratio to the floor. Beside the table (summary.md, summary.json) it draws summary.svg: throughput, p99 latency
// and gen 2 collections by strategy.
// Usage: node loadtest/local/report.js DIRECTORY TITLE

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeServer, floorName, isUnclean, markdownTable, row, sameProcess, serverDelta, serverDescription } from '../lib/strategy-table.js';
import { strategyChart } from './chart.js';

/**
 * What sign.lua's done() prints: wrk's own summary, latencies in microseconds.
 * @typedef {object} WrkResult
 * @property {number} requests
 * @property {number} durationMicroseconds
 * @property {number} p50Microseconds
 * @property {number} p90Microseconds
 * @property {number} p99Microseconds
 * @property {number} non2xx Responses with a status of 400 or more, as wrk counts them.
 * @property {number} socketErrors Connect, read, write and timeout errors.
 */

const [directory, title] = process.argv.slice(2);
if (!directory || !title) {
  console.error('Usage: node loadtest/local/report.js DIRECTORY TITLE');
  process.exit(2);
}

/** @param {string} name */
const readJson = (name) => JSON.parse(readFileSync(join(directory, name), 'utf8'));

const strategies = readFileSync(join(directory, 'strategies.txt'), 'utf8').split('\n').filter((s) => s.length > 0);
/** @type {import('../lib/strategy-table.js').ServiceStats | undefined} */
let last;
const rows = strategies.map((strategy) => {
  /** @type {WrkResult} */
  const wrk = readJson(`${strategy}.wrk.json`);
  const client = {
    requests: wrk.requests,
    seconds: wrk.durationMicroseconds / 1e6,
    p50Ms: wrk.p50Microseconds / 1000,
    p90Ms: wrk.p90Microseconds / 1000,
    p99Ms: wrk.p99Microseconds / 1000,
    errors: wrk.non2xx + wrk.socketErrors,
  };
  if (strategy === floorName) {
    // No server side but the processor time read from /proc around the run (loadtest/lib/floor.sh).
    /** @type {{ cpuSeconds: number }} */
    const cpuBefore = readJson('floor.before.json');
    /** @type {{ cpuSeconds: number }} */
    const cpuAfter = readJson('floor.after.json');
    const cpuMsPerRequest = wrk.requests > 0 ? (1000 * (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds)) / wrk.requests : null;
    return { ...row(strategy, client, null), cpuMsPerRequest };
  }

  /** @type {import('../lib/strategy-table.js').ServiceStats} */
  const before = readJson(`${strategy}.before.json`);
  /** @type {import('../lib/strategy-table.js').ServiceStats} */
  const after = readJson(`${strategy}.after.json`);
  last = after;
  return row(strategy, client, sameProcess(before, after) ? serverDelta(before, after, strategy) : null);
});

const server = last ? describeServer(serverDescription(last)) : 'server settings unknown';
const heading = last ? `${title}; ${server}` : title;
const table = markdownTable(heading, rows);
writeFileSync(join(directory, 'summary.md'), table);
writeFileSync(join(directory, 'summary.json'), JSON.stringify({ title: heading, rows }, null, 2));
writeFileSync(join(directory, 'summary.svg'), strategyChart(title, server, rows));
process.stdout.write(`${table}\n`);

// A comparison is only fair between runs that served every request; the table is still written, to show why not.
const unclean = rows.filter(isUnclean);
if (unclean.length > 0) {
  console.error(`Not a clean run: ${unclean.map((r) => `${r.strategy} (${r.errors} failed, ${r.server?.requests ?? 0} served)`).join(', ')}.`);
  process.exitCode = 1;
}
