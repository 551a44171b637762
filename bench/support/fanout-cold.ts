// bench/fanout's headline: the fan-out as users feel it, in a fresh `cadre run` process each time.
// A lead with Task sends N Task calls in its first reply; each child makes Glob, Read and answers;
// every model call takes 300 ms on the fake server, which runs in a process of its own (so the
// CLI's CPU figure is the runtime's alone). Sizes and builds are interleaved round by round, and
// each figure is the median over the rounds. Several builds (copies of dist/) can run side by side.
// cadre remembers how wide an agent fanned out in a project (its records, under HOME), so every
// measured run gets a home of its own and a history: `first` (a first run in the project), `repeat`
// (after one unmeasured run of the same size), `after16` (N = 1 after one run of N = 16: what a
// prediction that is wrong costs) or `preset` (a first run whose user config sets prestartThreads
// to N: threads for all N started from the lead's first request, what a repeat run should match).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { runCli, type CliRun } from './cli.js';
import { FANOUT_AGENTS } from './fanout-script.js';
import type { LoggedRequest } from './fanout-server.js';
import { median } from './stats.js';

/** What ran in the project before the measured run (see the header). */
export type ColdHistory = 'first' | 'repeat' | 'after16' | 'preset';
/** Every history, in the order they are reported. */
export const COLD_HISTORIES: readonly ColdHistory[] = ['first', 'repeat', 'after16', 'preset'];

/** One fresh-process run, measured. */
export interface ColdRun {
  build: string;
  history: ColdHistory;
  n: number;
  ok: boolean;
  /** The lead's first request to the end of its last reply, ÷ the ideal critical path. */
  ratio: number;
  activeMs: number;
  /** End of the lead's Task reply to the first request of the first / the last child. */
  spawnFirstMs: number;
  spawnMs: number;
  /** First to last child's first request. */
  spreadMs: number;
  /** Process spawned to the lead's first request. */
  startToFirstMs: number;
  wallMs: number;
  cpuSeconds: number;
  maxRssMb: number;
}

/** Medians of the rounds of one build at one size. */
export type ColdRow = Omit<ColdRun, 'ok'> & {
  runs: number;
  failed: number;
  ratioMin: number;
  ratioMax: number;
};

/** What the fresh-process mode runs. */
export interface ColdOptions {
  /** The project (its config must allow the largest size at once). */
  root: string;
  callMs: number;
  sizes: readonly number[];
  rounds: number;
  /**
   * Milliseconds between the SSE events of the lead's Task reply (0: the reply comes whole). The
   * ideal critical path then includes the time the reply took to write.
   */
  streamMs?: number;
  /** Label → dist directory. */
  builds: ReadonlyArray<{ label: string; dist: string }>;
  /** What runs before each measured run (default: nothing, a first run). */
  histories?: readonly ColdHistory[];
  /** Called after each run (progress on a long benchmark). */
  onRun?: (run: ColdRun, index: number, total: number) => void;
}

/** Starts bench/support/fanout-server.ts; `log()` takes the requests since the last call. */
async function startServer(callMs: number, streamMs: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join('bench', 'support', 'fanout-server.ts'), String(callMs), String(streamMs)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await iterator.next();
    if (done) throw new Error('bench/fanout: the model server exited');
    return value;
  };
  const url = (await next()).trim();
  return {
    url,
    log: async (): Promise<LoggedRequest[]> => {
      child.stdin.write('log\n');
      return JSON.parse(await next()) as LoggedRequest[];
    },
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** The figures of one run, from the server's log and the CLI's own report. */
/** How much longer than one model call the lead's Task reply took to write (0 when it came whole). */
function streamedMs(reply: LoggedRequest | undefined, callMs: number): number {
  return reply?.endedAt == null ? 0 : Math.max(0, reply.endedAt - reply.startedAt - callMs);
}

function measure(
  build: string,
  history: ColdHistory,
  n: number,
  run: CliRun,
  log: LoggedRequest[],
  idealMs: number,
  /** The call's latency when the lead's Task reply was streamed, else undefined. */
  streamedCallMs: number | undefined,
): ColdRun {
  const lead = log.filter((r) => r.who.startsWith('[lead]'));
  const firsts = log.filter((r) => r.who.startsWith('[sub]') && r.messages === 1).map((r) => r.startedAt);
  const leadStart = Math.min(...lead.map((r) => r.startedAt));
  const leadEnd = Math.max(...lead.map((r) => r.endedAt ?? NaN));
  const taskReply = lead.find((r) => r.messages === 1);
  const taskReplyEnd = taskReply?.endedAt ?? NaN;
  const activeMs = leadEnd - leadStart;
  return {
    build,
    history,
    n,
    ok: run.code === 0 && firsts.length === n && lead.length === 2,
    ratio: activeMs / (idealMs + (streamedCallMs === undefined ? 0 : streamedMs(taskReply, streamedCallMs))),
    activeMs,
    spawnFirstMs: Math.min(...firsts) - taskReplyEnd,
    spawnMs: Math.max(...firsts) - taskReplyEnd,
    spreadMs: Math.max(...firsts) - Math.min(...firsts),
    startToFirstMs: leadStart - run.spawnedAt,
    wallMs: run.wallMs,
    cpuSeconds: run.cpuSeconds,
    maxRssMb: run.maxRssMb,
  };
}

const FIGURES = [
  'activeMs',
  'spawnFirstMs',
  'spawnMs',
  'spreadMs',
  'startToFirstMs',
  'wallMs',
  'cpuSeconds',
  'maxRssMb',
] as const;

/** The median of each figure over one build's rounds at one size. */
function summarize(runs: ColdRun[]): ColdRow {
  const good = runs.filter((r) => r.ok);
  const use = good.length > 0 ? good : runs;
  const mid = (key: (typeof FIGURES)[number]) => median(use.map((r) => r[key]));
  const ratios = use.map((r) => r.ratio).sort((a, b) => a - b);
  const figures = Object.fromEntries(FIGURES.map((key) => [key, mid(key)])) as Pick<
    ColdRun,
    (typeof FIGURES)[number]
  >;
  return {
    build: runs[0]!.build,
    history: runs[0]!.history,
    n: runs[0]!.n,
    runs: runs.length,
    failed: runs.length - good.length,
    // Each run's own ideal (a streamed reply's writing time is part of it).
    ratio: median(use.map((r) => r.ratio)),
    ratioMin: ratios[0] ?? NaN,
    ratioMax: ratios.at(-1) ?? NaN,
    ...figures,
  };
}

/** The sizes a history is measured at: `after16` is N = 1 only. */
const sizesOf = (history: ColdHistory, sizes: readonly number[]) => (history === 'after16' ? [1] : sizes);

/** Runs the fresh-process fan-out: every history, size and build, interleaved, `rounds` times. */
export async function runColdFanout(options: ColdOptions): Promise<{ rows: ColdRow[]; runs: ColdRun[] }> {
  const { root, callMs, sizes, rounds, builds } = options;
  const histories = options.histories ?? ['first'];
  const idealMs = 5 * callMs;
  const server = await startServer(callMs, options.streamMs ?? 0);
  const runs: ColdRun[] = [];
  const total = rounds * builds.length * histories.reduce((sum, h) => sum + sizesOf(h, sizes).length, 0);
  const lead = (dist: string, n: number, home: string) =>
    runCli(
      ['run', 'lead', `go ${n}`, '--json', '--agents', FANOUT_AGENTS, '--cwd', root],
      { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, HOME: home },
      root,
      [],
      dist,
    );
  try {
    for (let round = 0; round < rounds; round++)
      for (const history of histories)
        for (const n of sizesOf(history, sizes))
          // Builds take turns going first, so neither always follows the other.
          for (let b = 0; b < builds.length; b++) {
            const build = builds[(b + round) % builds.length]!;
            const home = await mkdtemp(path.join(os.tmpdir(), 'cadre-fanout-home-'));
            try {
              if (history === 'preset') {
                await mkdir(path.join(home, '.cadre'));
                await writeFile(
                  path.join(home, '.cadre', 'config.json'),
                  JSON.stringify({ prestartThreads: n }),
                );
              }
              const before = history === 'repeat' ? n : history === 'after16' ? 16 : undefined;
              if (before !== undefined) await lead(build.dist, before, home);
              await server.log();
              const run = await lead(build.dist, n, home);
              const streamed = (options.streamMs ?? 0) > 0 ? callMs : undefined;
              runs.push(measure(build.label, history, n, run, await server.log(), idealMs, streamed));
              options.onRun?.(runs.at(-1)!, runs.length, total);
            } finally {
              await rm(home, { recursive: true, force: true });
            }
          }
  } finally {
    await server.close();
  }
  const rows = histories.flatMap((history) =>
    builds.flatMap((build) =>
      sizesOf(history, sizes).map((n) =>
        summarize(runs.filter((r) => r.build === build.label && r.history === history && r.n === n)),
      ),
    ),
  );
  return { rows, runs };
}
