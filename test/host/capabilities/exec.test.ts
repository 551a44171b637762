import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutputCap, runCommand } from '../../../src/host/capabilities/exec.js';
import { probeSandbox, type SandboxStatus } from '../../../src/host/capabilities/sandbox.js';

let project: string;
let sandbox: SandboxStatus;

beforeAll(async () => {
  project = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-exec-')));
  sandbox = await probeSandbox();
  if (!sandbox.available) console.log(`exec tests run unsandboxed only: ${sandbox.detail}`);
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

/** Live processes whose command line contains `marker` (sandboxed ones are visible here too). */
async function survivors(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) pids.push(Number(name));
  }
  return pids;
}

/** A `sleep` argument unique to one test, so survivors can be found by their command line. */
const uniqueSleep = () => `1000.${Math.floor(Math.random() * 1e9)}`;

const modes = () => (sandbox.available ? (['off', 'auto'] as const) : (['off'] as const));

describe('runCommand', () => {
  it('has a survivor check that sees a live process (control)', async () => {
    const sleep = uniqueSleep();
    const child = spawn('sleep', [sleep], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    expect(await survivors(sleep)).toEqual([child.pid]);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  });

  it('returns the exit code and both streams', async () => {
    const r = await runCommand({ command: 'echo out; echo err >&2; exit 7', cwd: project, sandbox: 'off' });
    expect(r).toMatchObject({
      exitCode: 7,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
      truncated: false,
      sandbox: 'none',
    });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect((await runCommand({ command: 'pwd', cwd: project, sandbox: 'off' })).stdout).toBe(`${project}\n`);
  });

  it('gives commands a minimal environment without the host secrets', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-test-must-not-leak';
    try {
      for (const mode of modes()) {
        const r = await runCommand({
          command:
            'echo "key=${ANTHROPIC_API_KEY:-unset} home=$HOME term=$TERM extra=$EXTRA"; command -v bash >/dev/null && echo has-path',
          cwd: project,
          sandbox: mode,
          env: { EXTRA: 'given' },
        });
        expect(r.stdout).toMatch(/^key=unset home=\S+ term=dumb extra=given\nhas-path\n$/);
        expect(r.stdout).not.toContain(`home=${os.homedir()} `);
      }
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    for (const mode of modes()) {
      const sleep = uniqueSleep();
      const started = performance.now();
      const r = await runCommand({
        command: `sleep ${sleep} & sleep ${sleep}; echo never`,
        cwd: project,
        sandbox: mode,
        timeoutMs: 300,
      });
      expect(r.timedOut).toBe(true);
      expect(r.stdout).toBe('');
      expect(performance.now() - started).toBeLessThan(2000);
      expect(await survivors(sleep)).toEqual([]);
    }
  });

  it('escalates to SIGKILL when a command ignores SIGTERM', async () => {
    const sleep = uniqueSleep();
    const r = await runCommand({
      command: `trap '' TERM; sleep ${sleep}; sleep ${sleep}`,
      cwd: project,
      sandbox: 'off',
      timeoutMs: 200,
    });
    expect(r.timedOut).toBe(true);
    expect(r.durationMs).toBeGreaterThanOrEqual(2000);
    expect(r.durationMs).toBeLessThan(4000);
    expect(await survivors(sleep)).toEqual([]);
  });

  it('ends background jobs left behind by a command that exits', async () => {
    for (const mode of modes()) {
      const sleep = uniqueSleep();
      const started = performance.now();
      const r = await runCommand({ command: `sleep ${sleep} & echo done`, cwd: project, sandbox: mode });
      expect(r.stdout).toBe('done\n');
      expect(r.exitCode).toBe(0);
      expect(performance.now() - started).toBeLessThan(3000);
      expect(await survivors(sleep)).toEqual([]);
    }
  });

  it('still kills a leftover that ignores SIGTERM and closed its output', async () => {
    const sleep = uniqueSleep();
    const r = await runCommand({
      command: `trap '' TERM; sleep ${sleep} >/dev/null 2>&1 & echo done`,
      cwd: project,
      sandbox: 'off',
      killGraceMs: 200,
    });
    expect(r.stdout).toBe('done\n');
    // The SIGKILL comes 200 ms after the command's end, on a timer a loaded machine runs late:
    // poll for the leftover's end (a `sleep 1000` that survives is still there after 5 s).
    for (let i = 0; i < 100 && (await survivors(sleep)).length > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await survivors(sleep)).toEqual([]);
  });

  it('caps output, keeping the head and the tail around a marker', async () => {
    const r = await runCommand({
      command: 'seq 1 200000',
      cwd: project,
      sandbox: 'off',
      maxOutputBytes: 1000,
    });
    expect(r.truncated).toBe(true);
    expect(r.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.stdout.endsWith('199999\n200000\n')).toBe(true);
    expect(r.stdout).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(r.stdout.length).toBeLessThan(1100);
  });

  it('kills the group and rejects with cancelled when aborted', async () => {
    for (const mode of modes()) {
      const sleep = uniqueSleep();
      const controller = new AbortController();
      // Timed from the abort: a sandbox prepared slowly (a loaded machine) is not the kill's delay.
      let aborted = Infinity;
      setTimeout(() => {
        aborted = performance.now();
        controller.abort();
      }, 200);
      await expect(
        runCommand({
          command: `sleep ${sleep} & sleep ${sleep}`,
          cwd: project,
          sandbox: mode,
          signal: controller.signal,
        }),
      ).rejects.toMatchObject({ code: 'cancelled' });
      expect(performance.now() - aborted).toBeLessThan(1800);
      expect(await survivors(sleep)).toEqual([]);
    }
    await expect(
      runCommand({ command: 'true', cwd: project, sandbox: 'off', signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('reports a missing working directory as not_found', async () => {
    await expect(
      runCommand({ command: 'true', cwd: path.join(project, 'nope'), sandbox: 'off' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('OutputCap', () => {
  it('passes short output through and trims long output to its cap', () => {
    const short = new OutputCap(10);
    short.push(Buffer.from('hello'));
    expect(short.toString()).toBe('hello');
    expect(short.truncated).toBe(false);
    const long = new OutputCap(10);
    for (const piece of ['abc', 'defgh', 'ijklmnop', 'qrstuvwxyz']) long.push(Buffer.from(piece));
    expect(long.truncated).toBe(true);
    expect(long.toString()).toBe('abcde\n[... 16 bytes of output omitted ...]\nvwxyz');
  });
});
