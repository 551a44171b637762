// `cadre run` and `cadre explore` driven as a user would: the compiled binary, the real SDK, the
// fake Messages API, real temp projects.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lastText,
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;

beforeAll(async () => {
  project = await tempProject({
    'src/retry.ts': 'export function retryWithBackoff() {\n  return 1;\n}\n',
    'README.md': '# demo\n',
  });
  server = await startFakeAnthropic({
    responder: (req) => {
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      const ask = req.body.messages[0]?.content;
      const question = typeof ask === 'string' ? ask : JSON.stringify(ask);
      if (question.includes('please fail')) return textReply('no', { stopReason: 'refusal' });
      if (question.includes('take your time')) return textReply('late', { latencyMs: 30_000 });
      if (turn === 0)
        return toolUseReply([{ name: 'Grep', input: { pattern: 'retry', output_mode: 'content' } }]);
      return textReply(
        `answer to: ${lastText({ ...req.body, messages: req.body.messages.slice(0, 1) }).slice(0, 40)}`,
      );
    },
  });
  env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

describe('cadre run', () => {
  it('--json prints one TaskOutput with every documented field', async () => {
    const r = await runCli(
      ['run', 'explore', 'where', 'is', 'retry?', '--json', '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining([
        'agentId',
        'status',
        'result',
        'usage',
        'durationMs',
        'turns',
        'toolCalls',
        'transcriptPath',
      ]),
    );
    expect(out.status).toBe('completed');
    expect(out.result).toMatch(/answer to: where is retry/);
    expect(out.usage).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      cache_read_input_tokens: expect.any(Number),
      cache_creation_input_tokens: expect.any(Number),
    });
    expect(out.turns).toBe(2);
    expect(out.toolCalls).toBe(1);
    const transcript = await readFile(out.transcriptPath as string, 'utf8');
    expect(transcript.trim().split('\n').pop()).toMatch(/"type":"status","at":\d+,"status":"completed"/);
    expect(r.stderr).toMatch(/Grep retry/);
  });

  it('prints the final text without --json, and exits 1 when the run did not complete', async () => {
    const ok = await runCli(['run', 'explore', 'find retry', '--cwd', project.dir], env, project.dir);
    expect(ok.stdout.trim()).toBe('answer to: find retry');
    const bad = await runCli(['run', 'explore', 'please fail', '--cwd', project.dir], env, project.dir);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/run failed/);
  });

  it('unknown agents, flags and bad values get clear messages', async () => {
    const unknown = await runCli(['run', 'nope', 'x', '--cwd', project.dir], env, project.dir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown agent type "nope"; available: .*explore/);
    const flag = await runCli(['run', 'explore', 'x', '--frobnicate'], env, project.dir);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--frobnicate'/);
    const mode = await runCli(['run', 'explore', 'x', '--permission-mode', 'yolo'], env, project.dir);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toMatch(
      /--permission-mode: expected one of default, acceptEdits, plan, bypassPermissions/,
    );
    expect(`${unknown.stderr}${flag.stderr}${mode.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('Ctrl-C cancels the run, prints it as cancelled and exits 130', async () => {
    const before = server.requestCount;
    const run = startCli(
      ['run', 'explore', 'take your time', '--json', '--cwd', project.dir],
      env,
      project.dir,
    );
    // Ctrl-C once the run is waiting on its model: a fixed delay could land before node has even
    // loaded the CLI (no handler yet: the process dies of the signal instead of exiting 130).
    await server.waitForRequests(before + 1, 20_000);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect((JSON.parse(r.stdout) as { status: string }).status).toBe('cancelled');
  });

  it('--record writes a cassette that --replay plays back with no server', async () => {
    const cassette = `${project.dir}/run.cassette.jsonl`;
    const recorded = await runCli(
      ['run', 'explore', 'where is retry', '--json', '--record', cassette, '--cwd', project.dir],
      env,
      project.dir,
    );
    expect(recorded.code).toBe(0);
    const replayed = await runCli(
      ['run', 'explore', 'where is retry', '--json', '--replay', cassette, '--cwd', project.dir],
      {},
      project.dir,
    );
    expect(replayed.code).toBe(0);
    expect((JSON.parse(replayed.stdout) as { result: string }).result).toBe(
      (JSON.parse(recorded.stdout) as { result: string }).result,
    );
  });
});

describe('cadre explore', () => {
  it('runs one explore agent per question in parallel; --json is an array with each question', async () => {
    const r = await runCli(
      [
        'explore',
        'where is retry',
        'what is in README',
        '--json',
        '--thoroughness',
        'quick',
        '--cwd',
        project.dir,
      ],
      env,
      project.dir,
    );
    expect(r.code).toBe(0);
    const outs = JSON.parse(r.stdout) as {
      question: string;
      status: string;
      result: string;
      agentId: string;
    }[];
    expect(outs.map((o) => o.question)).toEqual(['where is retry', 'what is in README']);
    expect(outs.every((o) => o.status === 'completed')).toBe(true);
    expect(new Set(outs.map((o) => o.agentId)).size).toBe(2);
  });

  it('without a key, explores on the offline model with file:line references', async () => {
    const r = await runCli(['explore', 'retryWithBackoff'], {}, project.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/## retryWithBackoff/);
    expect(r.stdout).toMatch(/offline model/i);
    expect(r.stdout).toMatch(/src\/retry\.ts:1/);
  });

  it('rejects a bad --thoroughness with exit 2', async () => {
    const r = await runCli(['explore', 'x', '--thoroughness', 'extreme'], env, project.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--thoroughness: expected one of quick, medium, very-thorough/);
  });
});
