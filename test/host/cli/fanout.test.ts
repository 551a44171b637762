// Caps on fan-out, through the real CLI, the real SDK and the fake Messages API: one message of
// 2,000 Task calls starts at most 16 subagents and answers the rest "limit reached, do not retry";
// one of 10,000 tool calls runs 64; and the per-tree subagent cap holds across messages, nesting
// and background runs.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolUseReply, type RequestBlock } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { resultText, startScripted, type ScriptedServer } from './scripted-server.js';

let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
  s = await startScripted();
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

/** The tool results the tagged run sent back after its `turn`-th reply. */
function resultsOf(tag: string, turn: number): RequestBlock[] {
  const body = JSON.parse(s.bodies(tag)[turn] ?? '{}') as { messages: { content: unknown }[] };
  return body.messages.at(-1)?.content as RequestBlock[];
}

const task = (tag: string, i: number, extra: Record<string, unknown> = {}) => ({
  name: 'Task',
  input: { description: `job ${i}`, prompt: `[[${tag}]] job ${i}`, subagent_type: 'explore', ...extra },
});

describe('fan-out caps', () => {
  it('2,000 Task calls in one message start at most 16 subagents; the rest come back as errors', async () => {
    s.scripts.set('swarm', [() => toolUseReply(Array.from({ length: 2000 }, (_, i) => task('kid', i)))]);
    const r = await runCli(
      ['run', 'general-purpose', '[[swarm]] fan out', '--cwd', project.dir],
      s.env,
      project.dir,
    );
    expect(r.code).toBe(0);
    expect(s.bodies('kid')).toHaveLength(16);
    const results = resultsOf('swarm', 1);
    expect(results).toHaveLength(2000);
    const refused = results.filter((b) => b.is_error === true);
    expect(refused).toHaveLength(1984);
    for (const b of refused)
      expect(resultText(b)).toMatch(/^limit_reached: at most 16 subagents start per message .*Do not retry/);
  }, 60_000);

  it('10,000 tool calls in one message run 64; the rest come back as errors', async () => {
    s.scripts.set('flood', [
      () => toolUseReply(Array.from({ length: 10_000 }, () => ({ name: 'LS', input: { path: 'src' } }))),
    ]);
    const r = await runCli(
      ['run', 'explore', '[[flood]] list', '--json', '--cwd', project.dir],
      s.env,
      project.dir,
    );
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { status: string }).status).toBe('completed');
    const results = resultsOf('flood', 1);
    expect(results).toHaveLength(10_000);
    expect(results.filter((b) => b.is_error !== true)).toHaveLength(64);
    expect(resultText(results[64])).toMatch(
      /^limit_reached: at most 64 tool calls run per message \(maxToolCallsPerMessage\) and this message made 10000; .*Do not retry/,
    );
  }, 120_000);

  it('config raises or lowers the caps; the tree cap holds across messages, nesting and background runs', async () => {
    await mkdir(path.join(project.dir, '.cadre'), { recursive: true });
    await writeFile(path.join(project.dir, '.cadre', 'config.json'), JSON.stringify({ maxSubagents: 5 }));
    const agents = JSON.stringify({
      nester: { description: 'delegates', prompt: 'You delegate.', tools: ['Task(explore)'], maxDepth: 1 },
    });
    let bg: string[] = [];
    s.scripts.set('tree', [
      () =>
        toolUseReply(
          [0, 1].map((i) => ({
            ...task('nest', i),
            input: { ...task('nest', i).input, subagent_type: 'nester', run_in_background: true },
          })),
        ),
      (_req, results) => {
        bg = results.map(
          (b) => /"agentId":\s*"([^"]+)"|agentId[: ]+(\S+)/.exec(resultText(b))?.slice(1).find(Boolean) ?? '',
        );
        return toolUseReply(
          bg.map((id) => ({ name: 'TaskOutput', input: { agent_id: id, block: true, timeout: 60 } })),
        );
      },
      () => toolUseReply([task('late', 0)]),
    ]);
    s.scripts.set('nest', [() => toolUseReply([task('leaf', 0), task('leaf', 1)])]);
    const r = await runCli(
      ['run', 'general-purpose', '[[tree]] build a tree', '--agents', agents, '--cwd', project.dir],
      s.env,
      project.dir,
    );
    expect(r.code).toBe(0);
    expect(bg.every((id) => id.startsWith('nester-'))).toBe(true);
    // Started: 2 nesters and 3 of their 4 leaves; the fourth leaf and the late one were refused.
    const started =
      s.bodies('nest').filter((b) => !b.includes('"tool_result"')).length +
      s.bodies('leaf').length +
      s.bodies('late').length;
    expect(started).toBe(5);
    const all = [...s.bodies('nest'), ...s.bodies('tree')].join('\n');
    expect(all.match(/this agent tree has launched 5 subagents, its limit \(maxSubagents/g)).toHaveLength(2);
  }, 60_000);

  it('rejects a cap out of range, naming the key', async () => {
    await writeFile(
      path.join(project.dir, '.cadre', 'config.json'),
      JSON.stringify({ maxToolCallsPerMessage: 0 }),
    );
    const r = await runCli(['run', 'explore', 'x', '--cwd', project.dir], s.env, project.dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/maxToolCallsPerMessage/);
    await writeFile(path.join(project.dir, '.cadre', 'config.json'), '{}');
  });
});
