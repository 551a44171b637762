// bench/sandbox-policy: how long the shell policy takes to judge a command: a 4 KB command line
// (goal: <= 1 ms median) and a typical short one, next to the bare tree-sitter parse of the same
// text, measured side by side (interleaved) in one process after warm-up; and what the grammar
// costs a fresh process: importing the policy, loading the grammar (once, at the first command),
// and the first decision. Drives the compiled library in dist/ (run `npm run build` first).
// With `--against <dir>` (another checkout, built), its policy judges the same 4 KB line in the same
// interleaved rounds, for a before/after figure from one run.
// Run: npx tsx bench/sandbox-policy.ts [--against <dir>]
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, quantile, writeResult } from './support/stats.js';

const DIST = path.resolve('dist', 'host', 'capabilities');
const againstAt = process.argv.indexOf('--against');
const AGAINST = againstAt > 0 ? process.argv[againstAt + 1] : undefined;
const GOAL_MS = 1;
const ROUNDS = 400;
const FRESH_RUNS = 7;

interface PolicyModule {
  decide(input: Record<string, unknown>): { decision: string; reason: string };
  loadShellGrammar(): Promise<void>;
}
interface GrammarModule {
  parseBash(source: string): { delete(): void } | undefined;
}

const RULES = {
  allow: [
    'Bash(git status:*)',
    'Bash(git diff:*)',
    'Bash(npm run test:*)',
    'Bash(grep:*)',
    'Bash(ls:*)',
    'Bash(cat:*)',
  ],
  deny: ['Bash(rm:*)', 'Bash(curl:*)', 'Read(secrets/**)'],
};

const SHORT = 'git status && npm run test -- --watch | grep x';

/** A 4 KB line of what agents run: lists, pipes, quotes, options, redirections to /dev/null. */
function longCommand(): string {
  let out = '';
  for (let i = 0; out.length < 4096; i++) {
    out +=
      `git diff --stat "src/module-${i}.ts" 2>/dev/null | grep -v 'vendor/${i}' && ` +
      `npm run test -- --filter "case ${i}" --reporter=dot > /dev/null; ls -la src/dir${i} || cat README.md; `;
  }
  return out.slice(0, out.lastIndexOf(';'));
}

/**
 * Times decisions on `command`. Unless `repeat`, each call gets a distinct trailing comment, so the
 * cache of recent readings never answers and every call parses and reads the line afresh.
 */
function decideTimer(policy: PolicyModule, command: string, repeat = false): () => number {
  const input = {
    capability: 'exec.run',
    command,
    projectDir: '/work/proj',
    homeDir: '/home/u',
    mode: 'default',
    rules: RULES,
  };
  let n = 0;
  return () => {
    if (!repeat) input.command = `${command} # ${n++}`;
    const start = performance.now();
    policy.decide(input);
    return performance.now() - start;
  };
}

function parseTimer(grammar: GrammarModule, command: string): () => number {
  return () => {
    const start = performance.now();
    grammar.parseBash(command)?.delete();
    return performance.now() - start;
  };
}

/** Wall-clock phases of a fresh process: import, grammar load, first decision (in ms). */
function freshProcess(): {
  importMs: number;
  loadMs: number;
  firstDecisionMs: number;
  secondDecisionMs: number;
} {
  const script = `
    const t0 = performance.now();
    const policy = await import(${JSON.stringify(pathToFileURL(path.join(DIST, 'policy.js')).href)});
    const t1 = performance.now();
    await policy.loadShellGrammar();
    const t2 = performance.now();
    const input = { capability: 'exec.run', command: ${JSON.stringify(SHORT)}, projectDir: '/p', mode: 'default', rules: {} };
    policy.decide(input);
    const t3 = performance.now();
    policy.decide(input);
    const t4 = performance.now();
    console.log(JSON.stringify({ importMs: t1 - t0, loadMs: t2 - t1, firstDecisionMs: t3 - t2, secondDecisionMs: t4 - t3 }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`fresh process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as ReturnType<typeof freshProcess>;
}

function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

async function main(): Promise<void> {
  const policy = (await import(pathToFileURL(path.join(DIST, 'policy.js')).href)) as PolicyModule;
  const grammar = (await import(
    pathToFileURL(path.join(DIST, 'policy', 'shell-grammar.js')).href
  )) as GrammarModule;
  await policy.loadShellGrammar();
  const long = longCommand();
  const check = policy.decide({
    capability: 'exec.run',
    command: long,
    projectDir: '/work/proj',
    mode: 'default',
    rules: RULES,
  });
  if (check.decision !== 'allow') throw new Error(`the 4 KB command should be allowed: ${check.reason}`);

  const other =
    AGAINST === undefined
      ? undefined
      : ((await import(
          pathToFileURL(path.resolve(AGAINST, 'dist', 'host', 'capabilities', 'policy.js')).href
        )) as PolicyModule);
  await other?.loadShellGrammar();
  const series = {
    decideLong: decideTimer(policy, long),
    ...(other ? { decideLongAgainst: decideTimer(other, long) } : {}),
    parseLong: parseTimer(grammar, long),
    decideShort: decideTimer(policy, SHORT),
    decideShortRepeated: decideTimer(policy, SHORT, true),
    parseShort: parseTimer(grammar, SHORT),
  };
  const times: Record<keyof typeof series | 'decideLongAgainst', number[]> = {
    decideLong: [],
    decideLongAgainst: [],
    parseLong: [],
    decideShort: [],
    decideShortRepeated: [],
    parseShort: [],
  };
  // Warm-up, then interleaved rounds: each round measures every series once, so load on the
  // machine falls on all of them alike.
  for (let i = 0; i < 100; i++) for (const f of Object.values(series)) f();
  for (let i = 0; i < ROUNDS; i++)
    for (const [name, f] of Object.entries(series)) times[name as keyof typeof series].push(f());

  const fresh = Array.from({ length: FRESH_RUNS }, freshProcess);
  const freshMedian = (k: keyof ReturnType<typeof freshProcess>) => round(median(fresh.map((f) => f[k])), 1);
  const result = {
    longCommandChars: long.length,
    rounds: ROUNDS,
    decideLongMedianMs: round(median(times.decideLong)),
    decideLongP90Ms: round(quantile(times.decideLong, 0.9)),
    ...(AGAINST === undefined
      ? {}
      : { against: AGAINST, decideLongAgainstMedianMs: round(median(times.decideLongAgainst)) }),
    parseLongMedianMs: round(median(times.parseLong)),
    decideShortMedianMs: round(median(times.decideShort)),
    decideShortP90Ms: round(quantile(times.decideShort, 0.9)),
    decideShortRepeatedMedianMs: round(median(times.decideShortRepeated)),
    parseShortMedianMs: round(median(times.parseShort)),
    goalMs: GOAL_MS,
    withinGoal: median(times.decideLong) <= GOAL_MS,
    freshProcess: {
      runs: FRESH_RUNS,
      importPolicyMs: freshMedian('importMs'),
      loadGrammarMs: freshMedian('loadMs'),
      firstDecisionMs: freshMedian('firstDecisionMs'),
      secondDecisionMs: freshMedian('secondDecisionMs'),
    },
    cpus: os.cpus().length,
    loadAverage1m: round(os.loadavg()[0] ?? 0, 1),
  };
  const file = await writeResult('sandbox-policy', result);
  console.log(
    `sandbox-policy: ${ROUNDS} interleaved rounds after warm-up (${result.cpus} CPUs, load average ${result.loadAverage1m})`,
  );
  console.log(
    `  4 KB command (${long.length} chars): decide median ${result.decideLongMedianMs} ms (p90 ${result.decideLongP90Ms} ms), of which the tree-sitter parse ${result.parseLongMedianMs} ms  goal <= ${GOAL_MS} ms: ${result.withinGoal ? 'met' : 'MISSED'}`,
  );
  if (AGAINST !== undefined)
    console.log(
      `  the same 4 KB line judged by ${AGAINST}, interleaved: median ${result.decideLongAgainstMedianMs} ms`,
    );
  console.log(
    `  short command (${SHORT.length} chars): decide median ${result.decideShortMedianMs} ms (p90 ${result.decideShortP90Ms} ms), parse ${result.parseShortMedianMs} ms; the same line again (reading kept) ${result.decideShortRepeatedMedianMs} ms`,
  );
  console.log(
    `  fresh process (median of ${FRESH_RUNS}): import the policy ${result.freshProcess.importPolicyMs} ms, load the grammar ${result.freshProcess.loadGrammarMs} ms (once, at the first command), first decision ${result.freshProcess.firstDecisionMs} ms, second ${result.freshProcess.secondDecisionMs} ms`,
  );
  console.log(`  written to ${path.relative(process.cwd(), file)}`);
}

await main();
