// @ts-check
// The per-strategy table that both load runs print: the k6 script (loadtest/k6/sign.js) and the local wrk run
// (loadtest/run-local.sh). One definition, so the two tables mean the same thing column by column.
// Plain ECMAScript with no runtime's globals: k6 and Node.js both import it.

/**
 * The parts of `GET /api/stats` (Signing.Http.ServiceStats) that the table reads.
 * @typedef {object} ServiceStats
 * @property {string} timestamp
 * @property {{ server: boolean, concurrent: boolean, latencyMode: string,
 *   collections: { gen0: number, gen1: number, gen2: number },
 *   totalAllocatedBytes: number, totalPauseMilliseconds: number,
 *   lastCollection: { generations: { loh: { sizeBeforeBytes: number, sizeAfterBytes: number } } } }} gc
 * @property {{ workingSetBytes: number, peakWorkingSetBytes: number, cpuSeconds: number, processorCount: number }} process
 * @property {{ smallPoolInUseBytes: number, smallPoolFreeBytes: number, largePoolInUseBytes: number, blocksCreated: number }} streamPool
 * @property {StrategyStats[]} strategies
 * @property {InstanceStats} instance
 */

/**
 * Which instance and process took a snapshot (Signing.Http.Stats.InstanceStats).
 * @typedef {object} InstanceStats
 * @property {string} id The platform's instance id, or the machine name.
 * @property {number} processId
 * @property {string} processStartTime
 */

/**
 * @typedef {object} StrategyStats
 * @property {string} name
 * @property {number} requests
 * @property {number} errors
 * @property {number} parseAllocatedBytes
 * @property {number} signAllocatedBytes
 */

/**
 * What the server did during one strategy's run: differences between the stats read before and after it, and the
 * levels the run ended at. Every field is a plain number so that k6 can carry it in a Gauge.
 * @typedef {object} ServerDelta
 * @property {number} requests Requests the server counted for the strategy.
 * @property {number} errors Of those, the ones that did not end in a 200.
 * @property {number} allocatedBytes Bytes allocated on request threads while parsing and signing for the strategy.
 * @property {number} processAllocatedBytes Bytes allocated by the whole process (Kestrel, body reads, responses too).
 * @property {number} gen0 Gen 0 collections.
 * @property {number} gen1 Gen 1 collections.
 * @property {number} gen2 Gen 2 (full) collections.
 * @property {number} pauseMilliseconds Time paused for collections.
 * @property {number} cpuSeconds Processor time of the whole process.
 * @property {number} lohBytes Large object heap size when the last collection of the run began.
 * @property {number} workingSetStartBytes Working set when the run began.
 * @property {number} workingSetEndBytes Working set when it ended.
 * @property {number} peakWorkingSetBytes The process's peak working set so far.
 */

/**
 * What the load generator saw of one strategy's run.
 * @typedef {object} ClientResult
 * @property {number} requests Completed requests.
 * @property {number} seconds Length of the measured run.
 * @property {number} p50Ms
 * @property {number} p90Ms
 * @property {number} p99Ms
 * @property {number} errors Failed requests: a status other than 200, or no response at all.
 */

/**
 * One line of the table, in the units it is printed in.
 * @typedef {object} Row
 * @property {string} strategy
 * @property {number} requestsPerSecond
 * @property {number} p50Ms
 * @property {number} p90Ms
 * @property {number} p99Ms
 * @property {number} errors
 * @property {number | null} cpuMsPerRequest Processor time of the whole server process per request: unlike throughput,
 *   it hardly moves with what else the machine is doing, so it compares runs made one after another on a busy machine.
 * @property {number | null} allocatedBytesPerRequest Parse and sign, on the request's thread.
 * @property {number | null} processAllocatedBytesPerRequest
 * @property {number | null} gen0Per1000
 * @property {number | null} gen1Per1000
 * @property {number | null} gen2Per1000
 * @property {number | null} pauseMsPer1000
 * @property {number | null} lohBytes
 * @property {number | null} workingSetStartBytes
 * @property {number | null} workingSetEndBytes
 * @property {number | null} peakWorkingSetBytes
 * @property {ServerDelta | null} server The raw differences the ratios came from; null when they are not one process's.
 */

/**
 * The row of the wire floor (bench/Signing.WireFloor, started by loadtest/lib/floor.sh): a server that only drains the
 * body and hashes it, the least any signing request can cost over HTTP. It has no /api/stats, so its server columns
 * stay empty; when a table has it, every row also shows its throughput and p99 as a ratio to the floor's.
 */
export const floorName = 'floor';

/** The names of the ServerDelta fields, in a fixed order, for carrying them through metrics. */
export const serverDeltaFields = /** @type {const} */ ([
  'requests', 'errors', 'allocatedBytes', 'processAllocatedBytes', 'gen0', 'gen1', 'gen2', 'pauseMilliseconds',
  'cpuSeconds', 'lohBytes', 'workingSetStartBytes', 'workingSetEndBytes', 'peakWorkingSetBytes',
]);

/**
 * The server's side of one strategy's run, from the stats read just before and just after it.
 * @param {ServiceStats} before
 * @param {ServiceStats} after
 * @param {string} strategy
 * @returns {ServerDelta}
 */
export function serverDelta(before, after, strategy) {
  const was = strategyStats(before, strategy);
  const now = strategyStats(after, strategy);
  return {
    requests: now.requests - was.requests,
    errors: now.errors - was.errors,
    allocatedBytes: now.parseAllocatedBytes + now.signAllocatedBytes - was.parseAllocatedBytes - was.signAllocatedBytes,
    processAllocatedBytes: after.gc.totalAllocatedBytes - before.gc.totalAllocatedBytes,
    gen0: after.gc.collections.gen0 - before.gc.collections.gen0,
    gen1: after.gc.collections.gen1 - before.gc.collections.gen1,
    gen2: after.gc.collections.gen2 - before.gc.collections.gen2,
    pauseMilliseconds: after.gc.totalPauseMilliseconds - before.gc.totalPauseMilliseconds,
    cpuSeconds: after.process.cpuSeconds - before.process.cpuSeconds,
    lohBytes: after.gc.lastCollection.generations.loh.sizeBeforeBytes,
    workingSetStartBytes: before.process.workingSetBytes,
    workingSetEndBytes: after.process.workingSetBytes,
    peakWorkingSetBytes: after.process.peakWorkingSetBytes,
  };
}

/**
 * Whether two snapshots came from the same process, so that subtracting one from the other means something. Under
 * scale-out each process counts only what it served, and the next read may be answered by another instance.
 * @param {ServiceStats} before
 * @param {ServiceStats} after
 */
export function sameProcess(before, after) {
  return before.instance.id === after.instance.id &&
    before.instance.processId === after.instance.processId &&
    before.instance.processStartTime === after.instance.processStartTime;
}

/**
 * @param {ServiceStats} stats
 * @returns {string}
 */
export function describeInstance(stats) {
  return `${stats.instance.id} (process ${stats.instance.processId}, started ${stats.instance.processStartTime})`;
}

/**
 * One table line from what the client and the server each saw of a run. Without the server's side (null), the
 * server's columns are left empty rather than filled with another process's numbers.
 * @param {string} strategy
 * @param {ClientResult} client
 * @param {ServerDelta | null} server
 * @returns {Row}
 */
export function row(strategy, client, server) {
  /** @param {number} value */
  const perRequest = (value) => (server && server.requests > 0 ? value / server.requests : null);
  /** @param {number} value */
  const per1000 = (value) => (server && server.requests > 0 ? (1000 * value) / server.requests : null);
  return {
    strategy,
    requestsPerSecond: client.seconds > 0 ? client.requests / client.seconds : 0,
    p50Ms: client.p50Ms,
    p90Ms: client.p90Ms,
    p99Ms: client.p99Ms,
    errors: client.errors,
    cpuMsPerRequest: server && server.requests > 0 ? (1000 * server.cpuSeconds) / server.requests : null,
    allocatedBytesPerRequest: perRequest(server?.allocatedBytes ?? 0),
    processAllocatedBytesPerRequest: perRequest(server?.processAllocatedBytes ?? 0),
    gen0Per1000: per1000(server?.gen0 ?? 0),
    gen1Per1000: per1000(server?.gen1 ?? 0),
    gen2Per1000: per1000(server?.gen2 ?? 0),
    pauseMsPer1000: per1000(server?.pauseMilliseconds ?? 0),
    lohBytes: server?.lohBytes ?? null,
    workingSetStartBytes: server?.workingSetStartBytes ?? null,
    workingSetEndBytes: server?.workingSetEndBytes ?? null,
    peakWorkingSetBytes: server?.peakWorkingSetBytes ?? null,
    server,
  };
}

/**
 * Whether a row cannot be compared fairly: some of its requests failed, or the server's side of it is missing or empty.
 * The floor has no server side by design, so only its failures count.
 * @param {Row} r
 */
export function isUnclean(r) {
  return r.errors > 0 || (r.strategy !== floorName && (!r.server || r.server.requests === 0));
}

/**
 * The server facts a table's heading states: the same code behaves differently under server and workstation GC, and a
 * table from two cores reads as ratios, not capacity.
 * @typedef {object} ServerDescription
 * @property {boolean} server Server GC rather than workstation GC.
 * @property {boolean} concurrent Background collections enabled.
 * @property {number} processorCount
 */

/**
 * @param {ServiceStats} stats
 * @returns {ServerDescription}
 */
export function serverDescription(stats) {
  return { server: stats.gc.server, concurrent: stats.gc.concurrent, processorCount: stats.process.processorCount };
}

/**
 * @param {ServerDescription} server
 * @returns {string}
 */
export function describeServer(server) {
  return `${server.server ? 'server' : 'workstation'} GC, ${server.concurrent ? 'concurrent' : 'non-concurrent'}, ${server.processorCount} cores`;
}

/**
 * The table as Markdown, one line per strategy, under a heading line.
 * @param {string} title
 * @param {Row[]} rows
 * @returns {string}
 */
export function markdownTable(title, rows) {
  // With a floor row, each row's throughput and p99 as a ratio to the floor's: the figures a load run is read by,
  // since absolute ones move with whatever else the machine is doing.
  const floor = rows.find((r) => r.strategy === floorName && r.requestsPerSecond > 0 && r.p99Ms > 0);
  const floorCpu = floor?.cpuMsPerRequest ?? null;
  /** @param {Row} r */
  const ratios = (r) => (floor ? [
    fixed(r.requestsPerSecond / floor.requestsPerSecond, 2),
    fixed(r.p99Ms / floor.p99Ms, 2),
    fixed(r.cpuMsPerRequest !== null && floorCpu ? r.cpuMsPerRequest / floorCpu : null, 2),
  ] : []);
  const header = [
    'strategy', 'req/s', ...(floor ? ['req/s ÷ floor', 'p99 ÷ floor', 'CPU/req ÷ floor'] : []), 'p50 ms', 'p90 ms', 'p99 ms',
    'CPU ms/req', 'errors', 'KB alloc/req (parse+sign)', 'KB alloc/req (process)',
    'gen0 /1k req', 'gen1 /1k req', 'gen2 /1k req', 'GC pause ms /1k req', 'LOH MB', 'working set MB (start → end, peak)',
  ];
  const lines = rows.map((r) => [
    `\`${r.strategy}\``,
    fixed(r.requestsPerSecond, 1),
    ...ratios(r),
    fixed(r.p50Ms, 1),
    fixed(r.p90Ms, 1),
    fixed(r.p99Ms, 1),
    fixed(r.cpuMsPerRequest, 2),
    String(r.errors),
    kilobytes(r.allocatedBytesPerRequest),
    kilobytes(r.processAllocatedBytesPerRequest),
    // Two decimals: a strategy that causes one collection in ten thousand requests is not one that causes none.
    fixed(r.gen0Per1000, 2),
    fixed(r.gen1Per1000, 2),
    fixed(r.gen2Per1000, 2),
    fixed(r.pauseMsPer1000, 1),
    fixed(megabytes(r.lohBytes), 1),
    r.server ? `${fixed(megabytes(r.workingSetStartBytes), 0)} → ${fixed(megabytes(r.workingSetEndBytes), 0)}, ${fixed(megabytes(r.peakWorkingSetBytes), 0)}` : '–',
  ]);
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [title, '', ...[header, align, ...lines].map((cells) => `| ${cells.join(' | ')} |`), ''].join('\n');
}

/**
 * @param {ServiceStats} stats
 * @param {string} strategy
 * @returns {StrategyStats}
 */
function strategyStats(stats, strategy) {
  const found = stats.strategies.find((s) => s.name === strategy);
  if (!found) {
    throw new Error(`The server has no strategy '${strategy}'; it has ${stats.strategies.map((s) => s.name).join(', ')}.`);
  }
  return found;
}

/**
 * @param {number | null} value
 * @param {number} digits
 */
function fixed(value, digits) {
  return value === null ? '–' : value.toFixed(digits);
}

/** @param {number | null} bytes */
function megabytes(bytes) {
  return bytes === null ? null : bytes / 1048576;
}

/** @param {number | null} bytes */
function kilobytes(bytes) {
  return bytes === null ? '–' : (bytes / 1024).toFixed(1);
}
