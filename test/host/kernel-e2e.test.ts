// The kernel's guarantees end to end: real worker threads, the real SDK against the fake server,
// real temp directories. A scripted model tries to escape the project; runaways are killed on
// time; hundreds of faulty runs each end with exactly one terminal status.
import { readFile, symlink, writeFile, mkdir, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskOutput } from '../../src/shared/task.js';
import { createFaultRuntime } from '../support/faults/fault-runtime.js';
import { stallAfterHeaders, textReply, toolUseReply } from '../support/fake-anthropic.js';
import { tempProject } from '../support/project.js';
import { startHarness, type Harness } from './agents/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('path jail, end to end', () => {
  it('denies traversal by every route with nothing read or written outside', async () => {
    const outsideDir = await import('node:fs/promises').then((fs) =>
      fs.mkdtemp(path.join(os.tmpdir(), 'cadre-outside-')),
    );
    await writeFile(path.join(outsideDir, 'secret.txt'), 'TOP-SECRET-CONTENT');
    const calls = [
      { name: 'Read', input: { file_path: '../outside/secret.txt' } },
      { name: 'Read', input: { file_path: path.join(outsideDir, 'secret.txt') } },
      { name: 'Read', input: { file_path: 'link-file' } },
      { name: 'Read', input: { file_path: 'link-dir/secret.txt' } },
      { name: 'Glob', input: { pattern: '../**/*.txt' } },
      { name: 'Glob', input: { pattern: '*.txt', path: 'link-dir' } },
      { name: 'Grep', input: { pattern: 'TOP-SECRET', path: outsideDir, output_mode: 'content' } },
      { name: 'Grep', input: { pattern: 'TOP-SECRET', path: '..', output_mode: 'content' } },
      { name: 'Write', input: { file_path: '../escaped.txt', content: 'x' } },
      { name: 'Write', input: { file_path: 'link-dir/escaped.txt', content: 'x' } },
      { name: 'Write', input: { file_path: path.join(outsideDir, 'escaped.txt'), content: 'x' } },
    ];
    h = await startHarness(
      {
        intruder: ({ turn, results }) =>
          turn === 0 ? toolUseReply(calls) : textReply(JSON.stringify(results)),
      },
      { intruder: { tools: ['Read', 'Write', 'Glob', 'Grep'] } },
      { permissionMode: 'bypassPermissions', files: { 'inside.txt': 'inside' } },
    );
    await symlink(path.join(outsideDir, 'secret.txt'), path.join(h.dir, 'link-file'));
    await symlink(outsideDir, path.join(h.dir, 'link-dir'));
    await mkdir(path.join(path.dirname(h.dir), 'outside'), { recursive: true });
    await writeFile(path.join(path.dirname(h.dir), 'outside', 'secret.txt'), 'TOP-SECRET-CONTENT');
    const out = await h.runtime.run({ subagent_type: 'intruder', prompt: 'escape' });
    const results = JSON.parse(out.result) as { content: string; is_error?: boolean }[];
    expect(results).toHaveLength(calls.length);
    expect(out.result).not.toContain('TOP-SECRET-CONTENT');
    for (const r of results) expect(r.is_error === true || !/secret\.txt/.test(r.content)).toBe(true);
    expect(await readdir(outsideDir)).toEqual(['secret.txt']);
    await expect(readFile(path.join(path.dirname(h.dir), 'escaped.txt'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('rules reach the tools, end to end', () => {
  it('a Grep deny rule keeps Grep out of those files while Read still reads them', async () => {
    const calls = [
      { name: 'Grep', input: { pattern: 'NEEDLE', output_mode: 'files_with_matches' } },
      { name: 'Read', input: { file_path: 'vendor/lib.js' } },
    ];
    h = await startHarness(
      {
        searcher: ({ turn, results }) =>
          turn === 0 ? toolUseReply(calls) : textReply(JSON.stringify(results)),
      },
      { searcher: { tools: ['Read', 'Grep'] } },
      {
        files: {
          'src/a.js': 'NEEDLE in src\n',
          'vendor/lib.js': 'NEEDLE in vendor\n',
          '.cadre/config.json': JSON.stringify({ permissions: { deny: ['Grep(vendor/**)'] } }),
        },
      },
    );
    const out = await h.runtime.run({ subagent_type: 'searcher', prompt: 'search' });
    const [grep, read] = JSON.parse(out.result) as { content: string; is_error?: boolean }[];
    const [found, ...rest] = (grep?.content ?? '').split('\n[');
    expect(found).toBe('Found 1 file\nsrc/a.js');
    // The model is told why the file was left out.
    expect(rest.join('[')).toMatch(/not searched: 1 file\(s\): .*Grep\(vendor\/\*\*\)/);
    expect(read?.is_error).not.toBe(true);
    expect(read?.content).toContain('NEEDLE in vendor');
  });
});

describe('Grep over more bytes than one read returns', () => {
  it('asks again for what did not fit and finds every match', async () => {
    const big = 'filler line of text\n'.repeat(45_000); // about 900 KB, under the per-file cap
    const files: Record<string, string> = {};
    for (let i = 0; i < 24; i++) files[`data/f${String(i).padStart(2, '0')}.txt`] = `${big}NEEDLE ${i}\n`;
    h = await startHarness(
      {
        searcher: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'Grep', input: { pattern: 'NEEDLE \\d+', output_mode: 'count' } }])
            : textReply(JSON.stringify(results)),
      },
      { searcher: { tools: ['Grep'] } },
      { files },
    );
    const out = await h.runtime.run({ subagent_type: 'searcher', prompt: 'search' });
    const [grep] = JSON.parse(out.result) as { content: string }[];
    // 24 files of 900 KB are more than one call's 16 MiB budget.
    expect(grep?.content).toMatch(/Found 24 matching lines across 24 files/);
  });
});

describe('hard deadlines, end to end', () => {
  it('kills a catastrophic Grep regex within 200 ms of the deadline', async () => {
    h = await startHarness(
      {
        grepper: () => toolUseReply([{ name: 'Grep', input: { pattern: '(a+)+$', output_mode: 'content' } }]),
      },
      { grepper: { tools: ['Grep'] } },
      { files: { 'evil.txt': `${'a'.repeat(40)}b\n` } },
    );
    const out = await h.runtime.run({ subagent_type: 'grepper', prompt: 'search', timeout: 1.5 });
    expect(out.status).toBe('timeout');
    expect(out.durationMs - 1500).toBeLessThan(200);
    // The worker gathers its events for one message per turn of its event loop, but a capability
    // call sends them first: the call that spun until the kill is in the transcript, before the end.
    const lines = (await readFile(out.transcriptPath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; name?: string; input?: { pattern?: string } });
    const call = lines.findIndex((l) => l.type === 'tool-call' && l.name === 'Grep');
    expect(lines[call]?.input?.pattern).toBe('(a+)+$');
    expect(lines.at(-1)?.type).toBe('status');
    expect(call).toBeLessThan(lines.length - 1);
  });

  it('a child whose model never answers, and one whose stream stalls, end on time while a sibling completes', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) =>
          turn === 0
            ? toolUseReply(
                ['silent', 'stalled', 'fine'].map((t) => ({
                  name: 'Task',
                  input: { description: t, prompt: t, subagent_type: t, timeout: 2 },
                })),
              )
            : textReply(JSON.stringify(results)),
        silent: () => textReply('never', { latencyMs: 60_000 }),
        stalled: () => stallAfterHeaders(),
        fine: () => textReply('fine report'),
      },
      {
        lead: { tools: ['Task'] },
        silent: { tools: ['Read'] },
        stalled: { tools: ['Read'] },
        fine: { tools: ['Read'] },
      },
    );
    const ends: TaskOutput[] = [];
    const handle = await h.runtime.task(
      { subagent_type: 'lead', prompt: 'go', timeout: 30 },
      { onEvent: (e) => void (e.type === 'agent-end' && e.depth === 1 && ends.push(e.output)) },
    );
    const out = await handle.result;
    expect(out.status).toBe('completed');
    const byType = Object.fromEntries(ends.map((o) => [o.agentType, o]));
    expect(byType.fine?.status).toBe('completed');
    for (const t of ['silent', 'stalled']) {
      expect(byType[t]?.status).toBe('timeout');
      expect(Math.abs((byType[t]?.durationMs ?? 0) - 2000)).toBeLessThan(1000);
    }
  });
});

describe('fault storm', () => {
  it('500 runs with 20% injected faults: one terminal status each, threads back to baseline, every transcript closed', async () => {
    const project = await tempProject({ 'src/a.ts': 'export const alpha = 1;\n', 'README.md': '# alpha\n' });
    const runtime = await createFaultRuntime({
      cwd: project.dir,
      home: project.home,
      env: {},
      memoryLimitMb: 48,
      concurrency: 8,
      threadIdleTimeoutMs: 200,
    });
    try {
      const baseline = runtime.stats().threads;
      const faults = ['throw', 'exit', 'oom-small', 'spin', 'hang'] as const;
      const expected: Record<string, string> = {
        throw: 'crashed',
        exit: 'crashed',
        'oom-small': 'crashed',
        spin: 'timeout',
        hang: 'timeout',
        none: 'completed',
      };
      const kinds = Array.from({ length: 500 }, (_, i) => (i % 5 === 0 ? faults[(i / 5) % 5]! : 'none'));
      const outputs = await Promise.all(
        kinds.map((kind) =>
          runtime.run({
            subagent_type: 'explore',
            prompt: kind === 'none' ? 'find alpha quick' : `fault:${kind}`,
            timeout: kind === 'spin' || kind === 'hang' ? 0.5 : 30,
          }),
        ),
      );
      expect(outputs).toHaveLength(500);
      outputs.forEach((o, i) => expect(o.status, `run ${i} (${kinds[i]})`).toBe(expected[kinds[i]!]));
      expect(new Set(outputs.map((o) => o.agentId)).size).toBe(500);
      for (const o of outputs) {
        const lines = (await readFile(o.transcriptPath, 'utf8')).trim().split('\n');
        const last = JSON.parse(lines[lines.length - 1]!) as { type: string; status: string };
        expect(last).toMatchObject({ type: 'status', status: o.status });
        expect(lines.filter((l) => l.includes('"type":"status"'))).toHaveLength(1);
      }
      expect(runtime.stats()).toMatchObject({ active: 0, queued: 0, runs: 0 });
      // Killed threads were replaced on demand; idle ones exit, back to the warm baseline (200 ms
      // idle each; up to 20 s for a loaded machine, a bound that only stops a hang).
      for (let i = 0; i < 200 && runtime.stats().threads > baseline; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(runtime.stats().threads).toBeLessThanOrEqual(baseline);
      expect((await runtime.run({ subagent_type: 'explore', prompt: 'find alpha quick' })).status).toBe(
        'completed',
      );
    } finally {
      await runtime.close();
      await project.cleanup();
    }
  }, 180_000);
});

describe('process isolation, end to end', () => {
  it('runs the real SDK through the model channel over IPC: a tool round trip, the key swapped in by the host', async () => {
    h = await startHarness(
      {
        reader: ({ turn, results }) =>
          turn === 0
            ? toolUseReply([{ name: 'Read', input: { file_path: 'inside.txt' } }])
            : textReply(`read: ${results[0]?.content ?? ''}`),
      },
      { reader: { tools: ['Read'] } },
      { isolation: 'process', files: { 'inside.txt': 'PROCESS-MODE-CONTENT' } },
    );
    const out = await h.runtime.run({ subagent_type: 'reader', prompt: 'read it' });
    expect(out.status).toBe('completed');
    expect(out.result).toContain('PROCESS-MODE-CONTENT');
    expect(h.server.requests).toHaveLength(2);
    expect(h.server.requests.map((r) => r.auth)).toEqual([
      { via: 'bearer', key: 'test-key' },
      { via: 'bearer', key: 'test-key' },
    ]);
  });
});

describe('transcripts that cannot be kept, end to end', () => {
  it('a run whose transcript cannot be opened ends failed (io_error, naming the file), at once', async () => {
    h = await startHarness(
      { talker: () => textReply('never seen') },
      { talker: { tools: ['Read'] } },
      {
        files: {
          // The transcripts directory would be inside a regular file: opening it fails.
          blocker: 'not a directory',
          '.cadre/config.json': JSON.stringify({ transcriptsDir: 'blocker/transcripts' }),
        },
      },
    );
    const out = await h.runtime.run({ subagent_type: 'talker', prompt: 'hello' });
    expect(out.status).toBe('failed');
    expect(out.error).toMatchObject({ code: 'io_error' });
    expect(out.error?.message).toContain(path.join(h.dir, 'blocker', 'transcripts'));
    // The runtime goes on: a later run fails the same clear way rather than hanging.
    expect((await h.runtime.run({ subagent_type: 'talker', prompt: 'again' })).status).toBe('failed');
  });
});

describe('transcripts keep the last turn, end to end', () => {
  it("every run's transcript holds its final reply, though the thread's result may reach the host first", async () => {
    // A thread's result comes back on Piscina's port, which the host may serve before the run's
    // own port: the events the worker sent just before it returned must still make the transcript.
    h = await startHarness({ talker: () => textReply('final words') }, { talker: { tools: ['Read'] } });
    const outs = await Promise.all(
      Array.from({ length: 60 }, (_, i) => h!.runtime.run({ subagent_type: 'talker', prompt: `hello ${i}` })),
    );
    for (const out of outs) {
      expect(out.status).toBe('completed');
      const lines = (await readFile(out.transcriptPath, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; message?: { role: string; content: unknown } });
      const types = lines.map((l) => l.type);
      expect(types.slice(-4)).toEqual(['message-append', 'turn-end', 'agent-end', 'status']);
      expect(lines.at(-4)?.message).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'final words' }],
      });
      expect(types).toContain('usage');
      expect(types).toContain('text-delta');
    }
  });
});
