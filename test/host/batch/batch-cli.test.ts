// `cadre batch` as a user runs it: the compiled binary (or, for tasks that fail on purpose, the
// test-only CLI with injected faults, support/faults/fault-cli.ts), the real SDK against the fake
// server, a results file that survives SIGKILL and resumes without duplicates.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorReply,
  stallAfterHeaders,
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { runCli, runFaultCli, startCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;

const agents = JSON.stringify({
  worker: { description: 'batch worker', prompt: 'You answer briefly.', tools: ['LS'], idleTimeout: 1 },
  // Paced tasks run as patient too: a restarted batch process starts its threads cold, and on a
  // loaded machine that can take longer than worker's one-second idle limit.
  patient: { description: 'waits for slow models', prompt: 'You answer briefly.', tools: ['LS'] },
});

beforeAll(async () => {
  project = await tempProject({ 'a.txt': 'a\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const first = req.body.messages[0]?.content;
      const prompt = typeof first === 'string' ? first : JSON.stringify(first);
      const kind = /kind=(\w+)/.exec(prompt)?.[1] ?? 'ok';
      switch (kind) {
        case 'slow':
          return textReply('too late', { latencyMs: 10_000 });
        case 'overloaded':
          return errorReply(529, { retryAfter: 0.01 });
        case 'loop':
          return toolUseReply([{ name: 'LS', input: { path: '.' } }]);
        case 'stall':
          return stallAfterHeaders();
        case 'paced':
          return textReply(`done ${prompt}`, { latencyMs: 150 });
        default:
          return textReply(`done ${prompt}`);
      }
    },
  });
  env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

const readResults = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map(
      (l) => JSON.parse(l) as { id: string; status: string; error?: { reason?: string; message: string } },
    );

const lineCount = async (file: string) =>
  (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

/** The batch process that `cadre batch` (the supervisor, `parent`) runs, once it is up. */
async function batchChild(parent: number, not?: number): Promise<number> {
  for (let i = 0; i < 1200; i++) {
    const pids = (() => {
      try {
        return execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' });
      } catch {
        return '';
      }
    })()
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((p) => p !== not);
    if (pids.length > 0) return pids[0]!;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no batch process under ${parent}`);
}

describe('cadre batch', () => {
  it('200 tasks with injected faults yield exactly 200 result lines with the right statuses', async () => {
    const plan: [string, string, Record<string, unknown>][] = [
      ['ok', 'completed', {}],
      ['slow', 'timeout', { timeout: 1 }],
      ['crash', 'crashed', {}],
      ['overloaded', 'failed', {}],
      ['loop', 'max_turns', { max_turns: 2 }],
      ['stall', 'timeout', { timeout: 20 }],
    ];
    const tasks = Array.from({ length: 200 }, (_, i) => {
      const [kind, , extra] = plan[i % plan.length]!;
      // Only the stalled streams need the 1 s idle watchdog; the SDK's retry back-off must not trip it.
      const agent = kind === 'stall' ? 'worker' : 'patient';
      return {
        id: `t${i}`,
        agent,
        prompt: kind === 'crash' ? 'fault:exit' : `task ${i} kind=${kind}`,
        ...extra,
      };
    });
    const file = path.join(project.dir, 'faults.jsonl');
    const out = path.join(project.dir, 'faults-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const r = await runFaultCli(
      ['batch', file, '--out', out, '--concurrency', '16', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(r.code, `exit ${r.code} signal ${r.signal}; stderr ends:\n${r.stderr.slice(-3000)}`).toBe(1);
    const results = await readResults(out);
    expect(results).toHaveLength(200);
    expect(new Set(results.map((x) => x.id)).size).toBe(200);
    for (const res of results) {
      const i = Number(res.id.slice(1));
      expect(res.status, `${res.id} (${plan[i % plan.length]![0]}): ${res.error?.message ?? ''}`).toBe(
        plan[i % plan.length]![1],
      );
    }
    expect(r.stderr).toMatch(/statuses: completed 34, failed 33, timeout 67, crashed 33, max_turns 33/);
    expect(r.stderr).toMatch(/duration: p50 [\d.]+ s, p95 [\d.]+ s/);
    const again = await runCli(
      ['batch', file, '--out', out, '--allow-failures', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/nothing to do: 200 tasks already have results in .*faults-results\.jsonl/);
    expect(await readResults(out)).toHaveLength(200);
    // Without --allow-failures the re-run says how to run the others again, and exits 1.
    const strict = await runCli(
      ['batch', file, '--out', out, '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/nothing to do: .*; use --retry with their statuses to run them again/);
  }, 120_000);

  it('reports bad lines with their line numbers and runs the good ones', async () => {
    const file = path.join(project.dir, 'mixed.jsonl');
    const out = path.join(project.dir, 'mixed-results.jsonl');
    await writeFile(
      file,
      [
        JSON.stringify({ id: 'a', agent: 'worker', prompt: 'one' }),
        '{not json',
        JSON.stringify({ id: 'b', agent: 'worker' }),
        JSON.stringify({ id: 'c', agent: 'ghost', prompt: 'x' }),
        JSON.stringify({ id: 'a', agent: 'worker', prompt: 'dup' }),
        JSON.stringify({ id: 'd', agent: 'worker', prompt: 'two' }),
      ].join('\n'),
    );
    const r = await runCli(
      ['batch', file, '--out', out, '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mixed\.jsonl:2: skipped: invalid JSON/);
    expect(r.stderr).toMatch(/mixed\.jsonl:3: skipped: prompt/);
    expect(r.stderr).toMatch(/mixed\.jsonl:4: skipped: agent: unknown agent "ghost"/);
    expect(r.stderr).toMatch(/mixed\.jsonl:5: skipped: id: duplicate id "a" \(first on line 1\)/);
    expect((await readResults(out)).map((x) => x.id).sort()).toEqual(['a', 'd']);
  });

  it('killed with SIGKILL midway, a second run finishes the rest with no duplicate ids', async () => {
    const tasks = Array.from({ length: 120 }, (_, i) => ({
      id: `k${i}`,
      agent: 'patient',
      prompt: `task ${i} kind=paced`,
    }));
    const file = path.join(project.dir, 'kill.jsonl');
    const out = path.join(project.dir, 'kill-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const first = startCli(
      ['batch', file, '--out', out, '--concurrency', '8', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    // Up to 60 s for 30 results (about 1 s on a quiet machine): the bound only stops a hang.
    for (let i = 0; i < 1200; i++) {
      const lines = (await readFile(out, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
      if (lines >= 30) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const partial = await readResults(out);
    expect(partial.length).toBeGreaterThanOrEqual(30);
    expect(partial.length).toBeLessThan(120);
    const second = await runCli(
      ['batch', file, '--out', out, '--concurrency', '8', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(second.code).toBe(0);
    const all = await readResults(out);
    expect(all).toHaveLength(120);
    expect(new Set(all.map((x) => x.id)).size).toBe(120);
    expect(all.every((x) => x.status === 'completed')).toBe(true);
  }, 120_000);

  it('a batch process that dies from a signal is restarted and resumes; nothing runs twice', async () => {
    const tasks = Array.from({ length: 40 }, (_, i) => ({
      id: `r${i}`,
      agent: 'patient',
      prompt: `task ${i} kind=paced`,
    }));
    const file = path.join(project.dir, 'crash.jsonl');
    const out = path.join(project.dir, 'crash-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const run = startCli(
      ['batch', file, '--out', out, '--concurrency', '4', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    const child = await batchChild(run.child.pid!);
    for (let i = 0; i < 1200 && (await lineCount(out)) < 8; i++) await new Promise((r) => setTimeout(r, 25));
    // What the kernel's OOM killer does; a native crash (SIGSEGV, SIGABRT) is handled the same way.
    process.kill(child, 'SIGKILL');
    const r = await run.done;
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stderr).toMatch(
      /batch process died \(SIGKILL\); resuming from .*crash-results\.jsonl \(restart 1\)/,
    );
    const results = await readResults(out);
    expect(results).toHaveLength(40);
    expect(new Set(results.map((x) => x.id)).size).toBe(40);
    expect(results.every((x) => x.status === 'completed')).toBe(true);
    // The summary covers the whole invocation, before and after the restart.
    expect(r.stderr).toMatch(/batch: 40 of 40 tasks ended/);
    expect(r.stderr).toMatch(/statuses: completed 40\n/);
  }, 60_000);

  it('reads tasks from a pipe (/dev/stdin), which can be read only once', async () => {
    const out = path.join(project.dir, 'stdin-results.jsonl');
    const run = startCli(
      ['batch', '/dev/stdin', '--out', out, '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    run.child.stdin?.end(
      `${JSON.stringify({ id: 's1', agent: 'worker', prompt: 'one' })}\n${JSON.stringify({ id: 's2', agent: 'worker', prompt: 'two' })}\n`,
    );
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect((await readResults(out)).map((x) => x.id).sort()).toEqual(['s1', 's2']);
  });

  it('gives up after repeated crashes that finish nothing, and says how to resume', async () => {
    const tasks = Array.from({ length: 4 }, (_, i) => ({
      id: `g${i}`,
      agent: 'patient',
      prompt: `task ${i} kind=slow`,
    }));
    const file = path.join(project.dir, 'giveup.jsonl');
    const out = path.join(project.dir, 'giveup-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const run = startCli(
      ['batch', file, '--out', out, '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    // Each batch process is killed as soon as it exists, before it starts a task: no task can be
    // blamed, and nothing is ever finished.
    let last: number | undefined;
    for (let i = 0; i < 3; i++) {
      last = await batchChild(run.child.pid!, last);
      process.kill(last, 'SIGKILL');
    }
    const r = await run.done;
    expect(r.code).toBe(137);
    expect(r.stderr).toMatch(/died \(SIGKILL\) 3 times in a row without finishing a task; giving up/);
    expect(r.stderr).toMatch(/run the same command to resume/);
    expect(await lineCount(out)).toBe(0);
  }, 60_000);

  it('a task that takes the batch process down twice is recorded as crashed, never run into a crash loop', async () => {
    // In thread mode a worker's native crash (here process.abort(); V8's fatal out-of-memory is
    // another) takes the whole batch process with it.
    const tasks = [
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `ok${i}`,
        agent: 'patient',
        prompt: `task ${i} kind=paced`,
      })),
      { id: 'bomb', agent: 'worker', prompt: 'fault:abort' },
      ...Array.from({ length: 6 }, (_, i) => ({
        id: `late${i}`,
        agent: 'patient',
        prompt: `late ${i} kind=paced`,
      })),
    ];
    const file = path.join(project.dir, 'abort.jsonl');
    const out = path.join(project.dir, 'abort-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const r = await runFaultCli(
      ['batch', file, '--out', out, '--concurrency', '4', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(1);
    const restarts = r.stderr.match(/batch process died \(SIGABRT\); resuming/g) ?? [];
    expect(restarts).toHaveLength(2);
    const results = await readResults(out);
    expect(results).toHaveLength(13);
    expect(new Set(results.map((x) => x.id)).size).toBe(13);
    const bomb = results.find((x) => x.id === 'bomb');
    expect(bomb).toMatchObject({ status: 'crashed', error: { reason: 'host_crash' } });
    expect(bomb?.error?.message).toMatch(/died \(SIGABRT, SIGABRT\) while this task was running, 2 times/);
    expect(results.filter((x) => x.status === 'completed')).toHaveLength(12);
    expect(r.stderr).toMatch(/statuses: completed 12, crashed 1/);
  }, 90_000);

  it('Ctrl-C cancels running tasks, records them as cancelled, and exits 130', async () => {
    const tasks = Array.from({ length: 40 }, (_, i) => ({
      id: `c${i}`,
      agent: 'patient',
      prompt: `task ${i} kind=slow`,
      timeout: 30,
    }));
    const file = path.join(project.dir, 'int.jsonl');
    const out = path.join(project.dir, 'int-results.jsonl');
    await writeFile(file, `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const before = server.requestCount;
    const run = startCli(
      ['batch', file, '--out', out, '--concurrency', '4', '--agents', agents, '--cwd', project.dir],
      env,
      project.dir,
    );
    // Ctrl-C once all four slots wait on the model (each reply takes 10 s): after a fixed delay a
    // slow start could have fewer running, or no signal handler yet.
    await server.waitForRequests(before + 4, 30_000);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    const results = await readResults(out);
    expect(results.length).toBe(4);
    expect(results.every((x) => x.status === 'cancelled')).toBe(true);
    expect(r.stderr).toMatch(/interrupted/);
  }, 60_000);
});
