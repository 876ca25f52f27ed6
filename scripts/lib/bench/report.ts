import type { CacheHitResult } from './cache-hit.ts';
import type { DashboardResult } from './dashboard.ts';
import type { MemoryResult } from './memory.ts';
import type { OverheadLevel } from './overhead.ts';
import type { StatusResult } from './status-endpoint.ts';

export const TARGETS = {
  overheadP50: 1.05,
  overheadP95: 1.15,
  overheadAtInFlight: 200,
  cacheHitP95Ms: 300,
  statusRequestsPerSecond: 3_000,
  statusP99Ms: 25,
  memoryGrowthPercent: 15,
  signInScriptKiB: 250,
  dashboardCallP95Ms: 50,
  /** CPU of the whole stack per uncached job. */
  cpuPerJobMs: 80,
};

export interface BenchResults {
  overhead?: OverheadLevel[];
  cacheHits?: CacheHitResult;
  status?: StatusResult;
  memory?: MemoryResult;
  dashboard?: DashboardResult;
}

const verdict = (isMet: boolean) => (isMet ? 'met' : 'MISSED');

/** The one table of a run: figure, value, target. */
export function formatTable(results: BenchResults): string {
  const rows: Array<[string, string, string]> = [];
  for (const level of results.overhead ?? []) {
    const isTargeted = level.inFlight === TARGETS.overheadAtInFlight;
    const isMet = (ratio: { p50: number; p95: number }) => verdict(ratio.p50 <= TARGETS.overheadP50 && ratio.p95 <= TARGETS.overheadP95);
    rows.push([
      `overhead ratio, ${level.inFlight} in flight (${level.jobs} jobs${level.failed ? `, ${level.failed} failed` : ''})`,
      `p50 ${level.serverRatio.p50.toFixed(3)}  p95 ${level.serverRatio.p95.toFixed(3)}${level.pollMs === null ? ` (client, long polls: p50 ${level.ratio.p50.toFixed(3)} p95 ${level.ratio.p95.toFixed(3)})` : ''}`,
      isTargeted ? `p50 ≤ ${TARGETS.overheadP50}, p95 ≤ ${TARGETS.overheadP95}: ${isMet(level.serverRatio)}${level.pollMs === null ? `, client ${isMet(level.ratio)}` : ''}` : '',
    ]);
  }
  for (const level of results.overhead ?? []) {
    const { stackMs, byPart } = level.cpu;
    rows.push([
      `CPU per uncached job, whole stack, ${level.inFlight} in flight`,
      `${stackMs.toFixed(1)} ms (Temporal ${byPart.temporal.toFixed(0)}, worker ${byPart.worker.toFixed(0)}, API ${byPart.api.toFixed(0)}, PostgreSQL ${byPart.postgres.toFixed(0)}; sandboxes ${byPart.sandboxes.toFixed(0)} apart)`,
      level.inFlight === TARGETS.overheadAtInFlight ? `≤ ${TARGETS.cpuPerJobMs} ms: ${verdict(stackMs <= TARGETS.cpuPerJobMs)}` : '',
    ]);
  }
  for (const level of results.overhead ?? []) {
    const { calls } = level;
    rows.push([
      `calls in flight at most (one account), ${level.inFlight} in flight`,
      `provider ${calls.providerInFlight}, model ${calls.modelInFlight}; waiting for the account's turn: ${calls.providerWaiting}, ${calls.modelWaiting}`,
      '',
    ]);
  }
  if (results.cacheHits) {
    const { latencyMs, jobs, concurrency } = results.cacheHits;
    rows.push([
      `cache hit, submit → completed (${jobs} jobs, ${concurrency} in flight)`,
      `p50 ${latencyMs.p50.toFixed(0)} ms  p95 ${latencyMs.p95.toFixed(0)} ms`,
      `p95 ≤ ${TARGETS.cacheHitP95Ms} ms: ${verdict(latencyMs.p95 <= TARGETS.cacheHitP95Ms)}`,
    ]);
  }
  if (results.status) {
    const { requestsPerSecond, latencyMs, connections, errors, non2xx, replyBytes } = results.status;
    rows.push([
      `status endpoint, ${connections} connections, ${(replyBytes / 1024).toFixed(1)} KiB replies${errors + non2xx ? ` (${errors} errors, ${non2xx} non-2xx)` : ''}`,
      `${requestsPerSecond} req/s  p99 ${latencyMs.p99} ms`,
      `≥ ${TARGETS.statusRequestsPerSecond} req/s, p99 ≤ ${TARGETS.statusP99Ms} ms: ${verdict(requestsPerSecond >= TARGETS.statusRequestsPerSecond && latencyMs.p99 <= TARGETS.statusP99Ms)}`,
    ]);
  }
  if (results.memory) {
    const { worker, api, jobsAtFirstReading, jobsAtLastReading } = results.memory;
    for (const [name, reading] of [['worker', worker], ['API', api]] as const) {
      rows.push([
        `${name} RSS after ${jobsAtFirstReading} → ${jobsAtLastReading} jobs`,
        `${reading.first.toFixed(0)} → ${reading.last.toFixed(0)} MiB (${reading.growthPercent >= 0 ? '+' : ''}${reading.growthPercent}%)`,
        `within ${TARGETS.memoryGrowthPercent} %: ${verdict(Math.abs(reading.growthPercent) <= TARGETS.memoryGrowthPercent)}`,
      ]);
    }
  }
  if (results.dashboard) {
    const { signInScript, calls, jobsSeeded } = results.dashboard;
    rows.push([
      `dashboard sign-in page, JavaScript of a first visit (${signInScript.files} files)`,
      `${signInScript.compressedKiB} KiB compressed (${signInScript.decodedKiB} KiB as run)`,
      `≤ ${TARGETS.signInScriptKiB} KiB: ${verdict(signInScript.compressedKiB <= TARGETS.signInScriptKiB)}`,
    ]);
    for (const call of calls) {
      rows.push([
        `dashboard GET ${call.call.replace('/app/api', '')}, ${jobsSeeded} jobs (${call.requests} requests)`,
        `p50 ${call.p50Ms} ms  p95 ${call.p95Ms} ms`,
        `p95 ≤ ${TARGETS.dashboardCallP95Ms} ms: ${verdict(call.p95Ms <= TARGETS.dashboardCallP95Ms)}`,
      ]);
    }
  }
  const widths = [0, 1, 2].map((column) => Math.max(...[['figure', 'value', 'target'], ...rows].map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(['figure', 'value', 'target']), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** A bar chart of the overhead ratios (p50, p95 per level) against the targets, plus the other figures as text. */
export function overheadChartSvg(results: BenchResults, subtitle: string): string {
  const levels = results.overhead ?? [];
  const width = 720;
  const height = 420;
  const plot = { left: 70, right: 20, top: 60, bottom: 150 };
  const plotHeight = height - plot.top - plot.bottom;
  const maxRatio = Math.max(1.3, ...levels.map((level) => level.serverRatio.p95)) * 1.1;
  const y = (ratio: number) => plot.top + plotHeight - (ratio / maxRatio) * plotHeight;
  const groupWidth = (width - plot.left - plot.right) / Math.max(1, levels.length);
  const bar = groupWidth * 0.28;
  const parts: string[] = [];
  // Defaults only where `extra` does not set them: a repeated attribute is invalid XML.
  const text = (x: number, yy: number, content: string, extra = '') =>
    `<text x="${x.toFixed(1)}" y="${yy.toFixed(1)}"${extra.includes('font-family=') ? '' : ' font-family="sans-serif"'}${extra.includes('font-size=') ? '' : ' font-size="12"'} ${extra}>${escapeXml(content)}</text>`;
  parts.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  parts.push(text(width / 2, 22, 'Orchestration overhead: submitted → completed (job row) ÷ critical path', 'text-anchor="middle" font-size="15" font-weight="bold"'));
  parts.push(text(width / 2, 40, subtitle, 'text-anchor="middle" fill="#555"'));
  for (let tick = 0; tick <= maxRatio; tick += 0.25) {
    parts.push(`<line x1="${plot.left}" x2="${width - plot.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#eee"/>`);
    parts.push(text(plot.left - 8, y(tick) + 4, tick.toFixed(2), 'text-anchor="end"'));
  }
  for (const [ratio, label] of [[TARGETS.overheadP50, 'p50 target'], [TARGETS.overheadP95, 'p95 target']] as const) {
    parts.push(`<line x1="${plot.left}" x2="${width - plot.right}" y1="${y(ratio)}" y2="${y(ratio)}" stroke="#c00" stroke-dasharray="5,4"/>`);
    parts.push(text(width - plot.right - 4, y(ratio) - 4, `${label} ${ratio}`, 'text-anchor="end" fill="#c00"'));
  }
  levels.forEach((level, index) => {
    const center = plot.left + groupWidth * (index + 0.5);
    const bars = [[-bar - 2, level.serverRatio.p50, '#3b6ea5'], [2, level.serverRatio.p95, '#8fb3d9']] as const;
    for (const [offset, value, color] of bars) {
      const x = center + offset;
      parts.push(`<rect x="${x.toFixed(1)}" y="${y(value).toFixed(1)}" width="${bar.toFixed(1)}" height="${(plot.top + plotHeight - y(value)).toFixed(1)}" fill="${color}"/>`);
      parts.push(text(x + bar / 2, y(value) - 4, value.toFixed(3), 'text-anchor="middle"'));
    }
    parts.push(text(center, plot.top + plotHeight + 18, `${level.inFlight} in flight`, 'text-anchor="middle"'));
  });
  parts.push(`<rect x="${plot.left}" y="${plot.top + plotHeight + 30}" width="12" height="12" fill="#3b6ea5"/>`);
  parts.push(text(plot.left + 16, plot.top + plotHeight + 40, 'p50 (job row)'));
  parts.push(`<rect x="${plot.left + 120}" y="${plot.top + plotHeight + 30}" width="12" height="12" fill="#8fb3d9"/>`);
  parts.push(text(plot.left + 136, plot.top + plotHeight + 40, 'p95 (job row)'));
  formatTable({ ...results, overhead: undefined })
    .split('\n')
    .slice(2)
    .forEach((row, index) => parts.push(text(plot.left, plot.top + plotHeight + 66 + index * 16, row.replace(/^\| | \|$/g, '').replace(/ +\| +/g, '  ·  '), 'font-family="monospace" font-size="11"')));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n${parts.join('\n')}\n</svg>\n`;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Where a level's time went beyond the critical path, from its last jobs' histories. */
export function formatTimeline(level: OverheadLevel, modelLatencyMs: number): string {
  const { planMs, lookupsMs, toInsightsMs, insightsMs, finishMs, workflowTasks, activityTasks, localActivities } = level.timeline;
  const providerPathMs = level.criticalPathMs.p50 - modelLatencyMs;
  return `  ${level.inFlight} in flight: start → plan read ${planMs} ms; lookups ${lookupsMs} ms (provider chains' critical path ${providerPathMs} ms); lookups done → insights scheduled ${toInsightsMs} ms; insights ${insightsMs} ms (model call configured ${modelLatencyMs} ms); insights done → completed ${finishMs} ms; per job ${workflowTasks} workflow tasks, ${activityTasks} activity tasks, ${localActivities} local activities; ${level.jobsPerSecond} jobs/s`;
}
