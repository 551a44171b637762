// The scripts in examples/ run as a user runs them (tsx, importing the built `cadre` package by
// name) against the offline model or the fake Messages API, and do what they say.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../support/fake-anthropic.js';
import { tempProject } from '../support/project.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** Runs `examples/<name>` in `cwd` with only `env` (plus PATH); resolves with what it printed. */
function runExample(
  name: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [TSX, path.join(ROOT, 'examples', name), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const turnOf = (body: { messages: { role: string }[] }) =>
  body.messages.filter((m) => m.role === 'assistant').length;

let server: FakeAnthropic | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(files: Record<string, string>) {
  const p = await tempProject(files);
  cleanups.push(p.cleanup);
  return p;
}

describe('examples/', () => {
  it('explore.ts answers each question with the offline model', async () => {
    const p = await project({
      'src/config-loader.ts': 'export function loadConfig() {}\n',
      'README.md': '# demo\n',
    });
    const r = await runExample('explore.ts', [p.dir, 'where is the config loaded?'], p.dir, { HOME: p.home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## where is the config loaded?\n(completed');
    expect(r.stdout).toContain('src/config-loader.ts');
    expect(r.stdout).toMatch(/offline model/);
  }, 60_000);

  it('batch-approvals.ts allows writes under notes/ and denies the rest', async () => {
    server = await startFakeAnthropic({
      responder: (req) => {
        const ask = JSON.stringify(req.body.messages[0]);
        if (turnOf(req.body) > 0) return textReply(`done: ${JSON.stringify(toolResults(req.body))}`);
        const file_path = ask.includes('TODO') ? 'notes/todo.md' : 'summary.md';
        return toolUseReply([{ name: 'Write', input: { file_path, content: 'written by the agent\n' } }]);
      },
    });
    const p = await project({ 'README.md': '# demo\n', 'src/a.ts': '// TODO: one\n' });
    const r = await runExample('batch-approvals.ts', [p.dir], p.dir, {
      HOME: p.home,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^todo: completed \(0 refused\)/m);
    expect(r.stdout).toMatch(/^readme: completed \(1 refused\).*only writes under notes\/ are allowed/m);
    expect(await readFile(path.join(p.dir, 'notes/todo.md'), 'utf8')).toBe('written by the agent\n');
    await expect(readFile(path.join(p.dir, 'summary.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('lead-agent.ts delegates to a scout defined in code', async () => {
    server = await startFakeAnthropic({
      responder: (req) => {
        const system = systemText(req.body);
        if (system.includes('You are a scout')) return textReply('scout report: tests live in test/');
        if (turnOf(req.body) === 0)
          return toolUseReply([
            {
              name: 'Task',
              input: { description: 'find tests', prompt: 'where are the tests?', subagent_type: 'scout' },
            },
          ]);
        return textReply(`merged: ${JSON.stringify(toolResults(req.body))}`);
      },
    });
    const p = await project({ 'README.md': '# demo\n' });
    const r = await runExample('lead-agent.ts', [p.dir, 'what is here?'], p.dir, {
      HOME: p.home,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('scout report: tests live in test/');
    expect(r.stderr).toContain('▶ lead\n  ▶ scout\n');
  }, 60_000);
});
