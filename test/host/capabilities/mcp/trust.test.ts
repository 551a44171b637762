// Trust in project MCP servers: records in the user's data directory, bound to the configuration,
// one question for concurrent runs, refusals that name the command which trusts.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TrustGate,
  trustCommand,
  type TrustRequest,
} from '../../../../src/host/capabilities/mcp/trust-gate.js';
import { TrustStore, trustFilePath } from '../../../../src/host/capabilities/mcp/trust.js';
import type { McpSource } from '../../../../src/host/capabilities/mcp/server-spec.js';
import { tempDir } from '../../registry/temp-dirs.js';

let home: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: home, cleanup } = await tempDir('cadre-trust-'));
});
afterEach(() => cleanup());

const project = '/work/proj';
const src = (name: string, command = 'srv', over: Partial<McpSource> = {}): McpSource => ({
  name,
  config: { type: 'stdio', command },
  scope: 'project',
  origin: `${project}/.mcp.json`,
  ...over,
});

describe('TrustStore', () => {
  it('trusts user servers always and project servers only as recorded, bound to their configuration', async () => {
    const store = await TrustStore.open(home);
    expect(store.isTrusted(project, src('gh', 'x', { scope: 'user' }))).toBe(true);
    expect(store.isTrusted(project, src('gh'))).toBe(false);
    await store.trust(project, [src('gh'), src('docs', 'd', { agent: 'writer' })]);
    const again = await TrustStore.open(home);
    expect(again.isTrusted(project, src('gh'))).toBe(true);
    expect(again.isTrusted(project, src('docs', 'd', { agent: 'writer' }))).toBe(true);
    expect(again.isTrusted(project, src('docs', 'd'))).toBe(false);
    expect(again.isTrusted(project, src('gh', 'other-command'))).toBe(false);
    expect(again.isTrusted('/work/other', src('gh'))).toBe(false);
    expect(trustFilePath(home)).toBe(path.join(home, '.cadre', 'mcp-trust.json'));
    expect(await again.revoke(project, ['gh'])).toEqual(['gh']);
    expect((await TrustStore.open(home)).isTrusted(project, src('gh'))).toBe(false);
  });

  it('a corrupt or hand-edited file trusts nothing it does not spell out', async () => {
    await mkdir(path.join(home, '.cadre'), { recursive: true });
    await writeFile(trustFilePath(home), '{"projects": {"/work/proj": {"gh": true, "docs": ["x"]}}}');
    const store = await TrustStore.open(home);
    expect(store.isTrusted(project, src('gh'))).toBe(false);
    await writeFile(trustFilePath(home), 'not json');
    expect((await TrustStore.open(home)).isTrusted(project, src('gh'))).toBe(false);
    await store.trust(project, [src('gh')]);
    expect(JSON.parse(await readFile(trustFilePath(home), 'utf8'))).toMatchObject({ version: 1 });
  });
});

describe('TrustGate', () => {
  it('without a prompt it refuses untrusted servers and names the command that trusts them', async () => {
    const gate = new TrustGate(() => TrustStore.open(home), project, undefined);
    const verdict = await gate.check([src('gh'), src('u', 'x', { scope: 'user' })]);
    expect(verdict.trusted.map((s) => s.name)).toEqual(['u']);
    expect(verdict.notice).toContain(
      'MCP server gh (configured by this project in /work/proj/.mcp.json) is not trusted',
    );
    expect(verdict.notice).toContain('cadre mcp trust --cwd /work/proj gh');
  });

  it('asks once for runs that start together; a yes is recorded, a no is remembered', async () => {
    const asked: TrustRequest[] = [];
    let answer = true;
    const gate = new TrustGate(
      () => TrustStore.open(home),
      project,
      async (request) => {
        asked.push(request);
        await new Promise((r) => setTimeout(r, 20));
        return answer;
      },
    );
    const verdicts = await Promise.all([1, 2, 3].map(() => gate.check([src('gh')])));
    expect(asked).toHaveLength(1);
    expect(asked[0]?.servers).toEqual([{ id: 'gh', origin: '/work/proj/.mcp.json', runs: 'srv' }]);
    expect(verdicts.every((v) => v.trusted.length === 1 && v.notice === undefined)).toBe(true);
    expect((await TrustStore.open(home)).isTrusted(project, src('gh'))).toBe(true);

    answer = false;
    expect((await gate.check([src('docs')])).notice).toContain('not trusted');
    expect((await gate.check([src('docs')])).notice).toContain('not trusted');
    expect(asked).toHaveLength(2);
  });

  it('quotes the project directory when the shell needs it', () => {
    expect(trustCommand("/tmp/my project's", ['a'])).toBe("cadre mcp trust --cwd '/tmp/my project'\\''s' a");
  });
});
