// bench/fanout's headline: the fan-out as users feel it, in a fresh `cadre run` process each time.
// A lead with Task sends N Task calls in its first reply; each child makes Glob, Read and answers;
// every model call takes 300 ms on the fake server, which runs in a process of its own (so the
// CLI's CPU figure is the runtime's alone). Sizes and builds are interleaved round by round, and
// each figure is the median over the rounds. Several builds (copies of dist/) can run side by side.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { runCli, type CliRun } from './cli.js';
import { FANOUT_AGENTS } from './fanout-script.js';
import type { LoggedRequest } from './fanout-server.js';
import { median } from './stats.js';

/** One fresh-process run, measured. */
export interface ColdRun {
  build: string;
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

/** Runs the fresh-process fan-out: every size and build, interleaved, `rounds` times. */
export async function runColdFanout(options: ColdOptions): Promise<{ rows: ColdRow[]; runs: ColdRun[] }> {
  const { root, callMs, sizes, rounds, builds } = options;
  const idealMs = 5 * callMs;
  const server = await startServer(callMs, options.streamMs ?? 0);
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const runs: ColdRun[] = [];
  const total = rounds * sizes.length * builds.length;
  try {
    for (let round = 0; round < rounds; round++)
      for (const n of sizes)
        // Builds take turns going first, so neither always follows the other.
        for (let b = 0; b < builds.length; b++) {
          const build = builds[(b + round) % builds.length]!;
          await server.log();
          const run = await runCli(
            ['run', 'lead', `go ${n}`, '--json', '--agents', FANOUT_AGENTS, '--cwd', root],
            env,
            root,
            [],
            build.dist,
          );
          const streamed = (options.streamMs ?? 0) > 0 ? callMs : undefined;
          runs.push(measure(build.label, n, run, await server.log(), idealMs, streamed));
          options.onRun?.(runs.at(-1)!, runs.length, total);
        }
  } finally {
    await server.close();
  }
  const rows = builds.flatMap((build) =>
    sizes.map((n) => summarize(runs.filter((r) => r.build === build.label && r.n === n))),
  );
  return { rows, runs };
}
