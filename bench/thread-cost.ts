// bench/thread-cost: what one worker thread costs before its first run, the floor under every
// fan-out in a fresh process. For a bare Node worker thread and for one that loads cadre's worker
// (as a pool thread does, with the pool's permission flags and its 2 MB young generation): the
// process CPU of starting one (threads started one after another, the host's share included), the
// RSS each adds while K of them are held, the thread's V8 heap by space (physical), and the zod
// schema objects its load builds. Each measurement runs in a fresh process of its own (RSS freed by
// ended threads would otherwise be reused by the next ones); builds and kinds take turns round by
// round, and figures are medians.
// Run: npm run build && npx tsx bench/thread-cost.ts [--rounds 7] [--threads 8]
//        [--build label=dir ...]  (each dir a copy of dist/ inside this checkout)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { permissionFlags, workerReadRoots } from '../src/host/pool/worker-flags.js';
import { median, writeResult } from './support/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    threads: { type: 'string', default: '8' },
    build: { type: 'string', multiple: true },
    // Internal: measure one kind in this process and print the figures (the parent spawns these).
    measure: { type: 'string' },
  },
});
const rounds = Number(args.rounds);
const threads = Number(args.threads);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds: expected a count, got ${args.rounds}`);
if (!Number.isInteger(threads) || threads < 1 || threads > 64)
  throw new Error(`--threads: expected a count from 1 to 64, got ${args.threads}`);
const builds = (args.build ?? ['current=dist']).map((spec) => {
  const [label, dist] = spec.includes('=') ? spec.split('=', 2) : [spec, spec];
  return { label: label!, dist: path.resolve(dist!) };
});

/** What a thread reports once loaded. */
interface Loaded {
  schemas: number;
  spaces: Record<string, number>;
  usedMb: number;
  externalMb: number;
}

/** The thread's code: optionally load a worker entry (counting zod schemas built), then report. */
function threadCode(entry: string | undefined): string {
  const load =
    entry === undefined
      ? ''
      : `const define = Object.defineProperty;
         Object.defineProperty = function (o, k, d) { if (k === '_zod') schemas++; return define(o, k, d); };
         require(${JSON.stringify(entry)});
         Object.defineProperty = define;`;
  return `const v8 = require('node:v8');
    let schemas = 0;
    ${load}
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) if (s.physical_space_size > 0) spaces[s.space_name] = s.physical_space_size / 1048576;
    const h = v8.getHeapStatistics();
    require('node:worker_threads').parentPort.postMessage({ schemas, spaces, usedMb: h.used_heap_size / 1048576, externalMb: h.external_memory / 1048576 });
    setInterval(() => {}, 1 << 30); // held until the host ends it`;
}

function start(entry: string | undefined, execArgv: string[]): Promise<{ worker: Worker; loaded: Loaded }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(threadCode(entry), {
      eval: true,
      env: {},
      execArgv,
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
    });
    worker.once('message', (loaded: Loaded) => resolve({ worker, loaded }));
    worker.once('error', reject);
  });
}

/** One measurement: `threads` threads started one after another and held, then ended. */
async function measure(entry: string | undefined, execArgv: string[]) {
  // The process first gives back what its own start-up used, or the threads' RSS hides in it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cpu0 = process.cpuUsage();
  const rss0 = process.memoryUsage().rss;
  const held: Array<{ worker: Worker; loaded: Loaded }> = [];
  for (let i = 0; i < threads; i++) held.push(await start(entry, execArgv));
  const cpu = process.cpuUsage(cpu0);
  const rss = process.memoryUsage().rss;
  await Promise.all(held.map(({ worker }) => worker.terminate()));
  return {
    cpuMs: (cpu.user + cpu.system) / 1000 / threads,
    rssMb: (rss - rss0) / 1048576 / threads,
    loaded: held[held.length - 1]!.loaded,
  };
}

type Sample = Awaited<ReturnType<typeof measure>>;

if (args.measure !== undefined) {
  // A child: one measurement of the kind named by its entry ('' for a bare thread) and read roots.
  const { entry, roots } = JSON.parse(args.measure) as { entry: string; roots: string[] };
  process.stdout.write(JSON.stringify(await measure(entry || undefined, permissionFlags(roots))));
  process.exit(0);
}

const kinds = [
  { label: 'node (bare thread)', entry: '', roots: workerReadRoots() },
  ...builds.map((b) => ({
    label: `cadre worker: ${b.label}`,
    entry: path.join(b.dist, 'worker-bundle', 'entry.cjs'),
    roots: [b.dist, ...workerReadRoots()],
  })),
];
const self = fileURLToPath(import.meta.url);
const samples = new Map<string, Sample[]>(kinds.map((k) => [k.label, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < kinds.length; i++) {
    const kind = kinds[(i + round) % kinds.length]!;
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', self, '--threads', String(threads), '--measure', JSON.stringify(kind)],
      { encoding: 'utf8' },
    );
    samples.get(kind.label)!.push(JSON.parse(out) as Sample);
    process.stderr.write(`\r  round ${round + 1}/${rounds}    `);
  }
}
process.stderr.write('\n');

const rows = kinds.map(({ label }) => {
  const s = samples.get(label)!;
  const mid = (pick: (x: Sample) => number) => median(s.map(pick));
  const spaces = Object.keys(s[0]!.loaded.spaces);
  return {
    thread: label,
    'start CPU ms': Number(mid((x) => x.cpuMs).toFixed(1)),
    'RSS MB': Number(mid((x) => x.rssMb).toFixed(2)),
    'heap used MB': Number(mid((x) => x.loaded.usedMb).toFixed(2)),
    'external MB': Number(mid((x) => x.loaded.externalMb).toFixed(2)),
    ...Object.fromEntries(
      spaces.map((space) => [`${space} MB`, Number(mid((x) => x.loaded.spaces[space] ?? 0).toFixed(2))]),
    ),
    'zod schemas': mid((x) => x.loaded.schemas),
  };
});
console.log(
  `\nper thread, ${threads} started one after another and held, medians of ${rounds} interleaved rounds:`,
);
console.table(rows);
console.log(`written to ${await writeResult('thread-cost', { rounds, threads, builds, rows })}`);
