// @ts-check
// The local run's table as a picture (loadtest/local/report.js writes it beside summary.md): three panels side by side,
// throughput, p99 latency and full collections, one bar per strategy, the rows lined up across panels so that a
// strategy reads from left to right. A standalone SVG: no script, no external font or stylesheet, every piece of text
// escaped, so it shows the same in a browser, an image viewer and a rendered Markdown page.

import { isUnclean } from '../lib/strategy-table.js';

/** @typedef {import('../lib/strategy-table.js').Row} Row */

/**
 * One panel: which number of a row it draws, and how it is labelled and rounded (as the Markdown table rounds it).
 * @typedef {object} Panel
 * @property {string} heading
 * @property {string} hint Which way is better.
 * @property {string} axis The axis label: what the number is, with its unit.
 * @property {(row: Row) => number | null} value
 * @property {number} digits
 * @property {string} colour
 */

/** @type {Panel[]} */
const panels = [
  { heading: 'Throughput', hint: 'higher is better', axis: 'requests per second', value: (r) => r.requestsPerSecond, digits: 1, colour: '#3b6ea5' },
  { heading: 'Tail latency', hint: 'lower is better', axis: 'p99 latency (ms)', value: (r) => r.p99Ms, digits: 1, colour: '#d9822b' },
  { heading: 'Full collections', hint: 'lower is better', axis: 'gen 2 collections per 1,000 requests', value: (r) => r.gen2Per1000, digits: 2, colour: '#5a9a4f' },
];

const font = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const mono = "ui-monospace, 'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', monospace";
const ink = '#1f2328';
const muted = '#59636e';
const rule = '#d0d7de';
const warn = '#b42318';

// Layout, in pixels. Widths of text are estimated (no font is measured): a character averages at most 0.6 of its
// size in the sans-serif fonts named here, bold included, and exactly 0.6 in a monospaced one.
const margin = 24;
const plotWidth = 250;
const panelGap = 44;
const rowHeight = 28;
const barHeight = 16;
const titleSize = 15;
const titleLineHeight = 20;

/**
 * The chart of one run as an SVG document.
 * @param {string} title What was run: widget count, body size, connections, duration.
 * @param {string} subtitle Under what collector and on how many cores.
 * @param {Row[]} rows One per strategy, in the table's order.
 * @returns {string}
 */
export function strategyChart(title, subtitle, rows) {
  const labelWidth = Math.max(80, Math.ceil(Math.max(...rows.map((r) => labelText(r).length), 0) * 12.5 * 0.6) + 16);
  const width = margin * 2 + labelWidth + panels.length * plotWidth + (panels.length - 1) * panelGap;
  const titleLines = wrap(title, Math.floor((width - 2 * margin) / (titleSize * 0.6)));
  const top = margin + titleLines.length * titleLineHeight + 22;
  const plotTop = top + 40;
  const plotHeight = rows.length * rowHeight;
  const unclean = rows.filter(isUnclean);
  const height = plotTop + plotHeight + 52 + (unclean.length > 0 ? 22 : 0) + margin;

  /** @type {string[]} */
  const parts = [];
  parts.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  titleLines.forEach((line, i) => {
    parts.push(text(margin, margin + titleSize + i * titleLineHeight, line, { size: titleSize, weight: 600 }));
  });
  parts.push(text(margin, margin + titleLines.length * titleLineHeight + 14, subtitle, { size: 12, fill: muted }));

  // Bands behind every other row, the full width, so that the eye can follow one strategy across the panels.
  rows.forEach((r, i) => {
    if (i % 2 === 1) {
      parts.push(`<rect x="${margin}" y="${plotTop + i * rowHeight}" width="${width - 2 * margin}" height="${rowHeight}" fill="#f6f8fa"/>`);
    }
    parts.push(text(margin + labelWidth - 12, rowMiddle(plotTop, i), labelText(r), {
      size: 12.5, family: mono, anchor: 'end', fill: r.errors > 0 ? warn : ink,
    }));
  });

  panels.forEach((panel, p) => {
    const left = margin + labelWidth + p * (plotWidth + panelGap);
    parts.push(...drawPanel(panel, rows, left, top, plotTop, plotHeight));
  });

  if (unclean.length > 0) {
    const note = `Not a clean run: ${unclean.map((r) => `${r.strategy} (${r.errors} failed, ${r.server?.requests ?? 0} served)`).join(', ')}.`;
    parts.push(text(margin, height - margin, note, { size: 12, fill: warn, weight: 600 }));
  }

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${escape(font)}">`,
    `<title>${escape(`${title}; ${subtitle}`)}</title>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/**
 * One panel: heading, grid and ticks, a bar per row with its value printed after it, and the axis label.
 * @param {Panel} panel
 * @param {Row[]} rows
 * @param {number} left
 * @param {number} top
 * @param {number} plotTop
 * @param {number} plotHeight
 * @returns {string[]}
 */
function drawPanel(panel, rows, left, top, plotTop, plotHeight) {
  const values = rows.map(panel.value);
  const labels = values.map((v) => (v === null ? 'no data' : number(v, panel.digits)));
  // The axis reaches far enough that the longest bar still has its value printed after it, inside the panel.
  const room = Math.max(0, ...values.map((v, i) => (v === null ? 0 : labels[i].length * 11 * 0.6))) + 8;
  const largest = Math.max(0, ...values.map((v) => v ?? 0));
  const { end, step } = axis((largest * plotWidth) / (plotWidth - room));
  const x = (/** @type {number} */ v) => left + (v / end) * plotWidth;

  /** @type {string[]} */
  const parts = [];
  parts.push(text(left, top + 14, panel.heading, { size: 13.5, weight: 600 }));
  parts.push(text(left, top + 30, panel.hint, { size: 11.5, fill: muted }));

  const tickDigits = decimals(step);
  for (let i = 0; i * step <= end + step / 1e6; i++) {
    const at = x(i * step);
    parts.push(`<line x1="${round(at)}" y1="${plotTop}" x2="${round(at)}" y2="${plotTop + plotHeight}" stroke="${i === 0 ? '#8c959f' : rule}" stroke-width="1"${i === 0 ? '' : ' stroke-dasharray="2 3"'}/>`);
    parts.push(text(at, plotTop + plotHeight + 16, number(i * step, tickDigits), { size: 11, fill: muted, anchor: 'middle' }));
  }

  values.forEach((v, i) => {
    const middle = rowMiddle(plotTop, i);
    const length = v === null ? 0 : x(v) - left;
    if (length > 0) {
      parts.push(`<rect x="${left}" y="${round(middle - barHeight / 2)}" width="${round(Math.max(length, 1))}" height="${barHeight}" rx="2" fill="${panel.colour}"/>`);
    }
    parts.push(text(left + length + 5, middle, labels[i], { size: 11, fill: v === null ? muted : ink, weight: v === null ? 400 : 600 }));
  });

  parts.push(text(left + plotWidth / 2, plotTop + plotHeight + 36, panel.axis, { size: 12, fill: ink, anchor: 'middle' }));
  return parts;
}

/**
 * A strategy's label: its name, and how many of its requests failed when any did.
 * @param {Row} row
 */
function labelText(row) {
  return row.errors > 0 ? `${row.strategy} (${row.errors} failed)` : row.strategy;
}

/**
 * @param {number} plotTop
 * @param {number} index
 */
function rowMiddle(plotTop, index) {
  return plotTop + index * rowHeight + rowHeight / 2;
}

/**
 * An axis from zero that holds `least`, in at most five round steps (1, 2, 2.5, 3, 4 or 5 times a power of ten).
 * @param {number} least
 * @returns {{ end: number, step: number }}
 */
function axis(least) {
  if (!(least > 0)) {
    return { end: 1, step: 0.25 };
  }
  const rough = least / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 3, 4, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return { end: Math.ceil(least / step - 1e-9) * step, step };
}

/**
 * Digits after the point that tick labels of `step` need: none for whole steps, two for 0.25.
 * @param {number} step
 */
function decimals(step) {
  for (let digits = 0; digits < 6; digits++) {
    if (Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) < 1e-6) {
      return digits;
    }
  }
  return 6;
}

/**
 * A number as the table writes it, with thousands grouped.
 * @param {number} value
 * @param {number} digits
 */
function number(value, digits) {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** @param {number} value */
function round(value) {
  return Math.round(value * 10) / 10;
}

/**
 * Splits `line` at spaces into lines of at most `width` characters (a longer word stands alone).
 * @param {string} line
 * @param {number} width
 * @returns {string[]}
 */
function wrap(line, width) {
  /** @type {string[]} */
  const lines = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current.length > 0 && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current.length > 0 ? `${current} ${word}` : word;
    }
  }
  lines.push(current);
  return lines;
}

/**
 * A text element, centred vertically on `y`.
 * @param {number} x
 * @param {number} y
 * @param {string} content
 * @param {{ size: number, fill?: string, weight?: number, anchor?: 'start' | 'middle' | 'end', family?: string }} style
 */
function text(x, y, content, style) {
  const attributes = [
    `x="${round(x)}"`, `y="${round(y)}"`, `font-size="${style.size}"`, `fill="${style.fill ?? ink}"`,
    style.weight && style.weight !== 400 ? `font-weight="${style.weight}"` : '',
    style.anchor && style.anchor !== 'start' ? `text-anchor="${style.anchor}"` : '',
    style.family ? `font-family="${escape(style.family)}"` : '',
    'dominant-baseline="middle"',
  ].filter((a) => a.length > 0);
  return `<text ${attributes.join(' ')}>${escape(content)}</text>`;
}

/**
 * Text made safe for an SVG element or attribute.
 * @param {string} value
 */
function escape(value) {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
