// Batch progress: on a TTY one redrawn line (bar, counts per status, tokens, rate, ETA); otherwise
// a plain line every few seconds. And the closing summary: counts, tokens, p50/p95 duration.
import { TaskStatus } from '../../shared/task.js';
import { totalTokens } from '../../shared/task.js';
import type { BatchResult } from './run-batch.js';

/** What `cadre batch --json` prints: the closing summary as data. */
export interface BatchSummary {
  /** Tasks this invocation covered (run now, or finished before a restart of this invocation). */
  total: number;
  /** Of those, how many ended with a result line. */
  done: number;
  /** Result counts per status. */
  statuses: Partial<Record<TaskStatus, number>>;
  tokens: number;
  durationMs: { p50: number; p95: number };
  /** Capability calls the host refused, over all tasks, and the tasks that had any. */
  refused: { calls: number; tasks: number };
  /** Tasks of the file skipped because they already had results. */
  alreadyDone: number;
  /** Lines of the tasks file that were skipped as invalid. */
  invalidLines: number;
  elapsedMs: number;
  /** The results file (absolute). */
  results: string;
  exitCode: number;
  /** Why the batch stopped early: a signal's name, or the write error. */
  stopped?: string;
}

/** Running totals of a batch. */
export class BatchTally {
  readonly counts = new Map<string, number>();
  readonly durations: number[] = [];
  tokens = 0;
  done = 0;
  refusedCalls = 0;
  refusedTasks = 0;
  readonly startedAt = performance.now();

  constructor(readonly total: number) {}

  /** Counts one result. */
  add(result: BatchResult): void {
    this.done++;
    this.counts.set(result.status, (this.counts.get(result.status) ?? 0) + 1);
    this.durations.push(result.durationMs);
    this.tokens += totalTokens(result.usage);
    if ((result.refused ?? 0) > 0) {
      this.refusedCalls += result.refused ?? 0;
      this.refusedTasks++;
    }
  }

  private quantile(p: number): number {
    const sorted = [...this.durations].sort((a, b) => a - b);
    return sorted.length
      ? (sorted[Math.min(sorted.length - 1, Math.round(p * (sorted.length - 1)))] ?? 0)
      : 0;
  }

  /** The summary as data (`cadre batch --json`). */
  toSummary(
    fields: Pick<BatchSummary, 'alreadyDone' | 'invalidLines' | 'results' | 'exitCode' | 'stopped'>,
  ): BatchSummary {
    const statuses: BatchSummary['statuses'] = {};
    for (const s of TaskStatus.options) {
      const n = this.counts.get(s);
      if (n !== undefined) statuses[s] = n;
    }
    const { stopped, ...rest } = fields;
    return {
      total: this.total,
      done: this.done,
      statuses,
      tokens: this.tokens,
      durationMs: { p50: Math.round(this.quantile(0.5)), p95: Math.round(this.quantile(0.95)) },
      refused: { calls: this.refusedCalls, tasks: this.refusedTasks },
      elapsedMs: Math.round(performance.now() - this.startedAt),
      ...rest,
      ...(stopped !== undefined ? { stopped } : {}),
    };
  }

  /** Tasks per second so far. */
  rate(): number {
    const s = (performance.now() - this.startedAt) / 1000;
    return s > 0 ? this.done / s : 0;
  }

  private countsText(): string {
    return TaskStatus.options
      .filter((s) => this.counts.has(s))
      .map((s) => `${s} ${this.counts.get(s)}`)
      .join(', ');
  }

  /** The one-line progress text. */
  line(tty: boolean): string {
    const rate = this.rate();
    const left = this.total - this.done;
    const eta = rate > 0 && left > 0 ? ` ETA ${formatSeconds(left / rate)}` : '';
    const pct = this.total > 0 ? this.done / this.total : 1;
    const bar = tty ? `[${'#'.repeat(Math.round(pct * 24)).padEnd(24, '.')}] ` : '';
    return `${bar}${this.done}/${this.total} (${Math.round(pct * 100)}%) ${this.countsText() || 'starting'} | ${this.tokens} tokens | ${rate.toFixed(1)} tasks/s${eta}`;
  }

  /** The closing summary. */
  summary(): string {
    return [
      `batch: ${this.done} of ${this.total} tasks ended in ${formatSeconds((performance.now() - this.startedAt) / 1000)}`,
      `  statuses: ${this.countsText() || 'none'}`,
      `  tokens: ${this.tokens}`,
      `  duration: p50 ${(this.quantile(0.5) / 1000).toFixed(2)} s, p95 ${(this.quantile(0.95) / 1000).toFixed(2)} s`,
      ...(this.refusedCalls > 0
        ? [
            `  refused: ${this.refusedCalls} capability calls in ${this.refusedTasks} task(s) (see each task's transcript)`,
          ]
        : []),
    ].join('\n');
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Draws progress to a stream: redrawn on a TTY, every `intervalMs` otherwise. */
export function progressReporter(
  tally: BatchTally,
  stream: { write(text: string): unknown; isTTY?: boolean },
  intervalMs = 5000,
): { tick(): void; stop(): void } {
  const tty = stream.isTTY === true;
  let last = 0;
  const draw = () => {
    last = performance.now();
    stream.write(tty ? `\r\x1b[2K${tally.line(true)}` : `${tally.line(false)}\n`);
  };
  const timer = setInterval(draw, tty ? 250 : intervalMs);
  timer.unref();
  return {
    tick: () => {
      if (tty && performance.now() - last > 100) draw();
    },
    stop: () => {
      clearInterval(timer);
      if (tty) stream.write(`\r\x1b[2K${tally.line(true)}\n`);
      else draw();
    },
  };
}
