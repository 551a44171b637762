// fs.readMany as a worker calls it: the glob form is judged as the fs.glob call it replaces (its
// directory and pattern) before any file is walked, and each file as fs.readMany after.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../src/host/approvals/broker.js';
import { nonInteractiveResolver } from '../../../src/host/approvals/resolvers.js';
import { effectHandlers, type EffectContext } from '../../../src/host/capabilities/fs-handlers.js';
import type { PolicyRules } from '../../../src/host/capabilities/policy.js';
import { sandboxOff } from '../../support/sandbox-off.js';

let base: string;
let project: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-read-many-')));
  project = path.join(base, 'project');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(project, 'src', 'a.ts'), 'alpha\n');
  await writeFile(path.join(project, '.env'), 'TOKEN=1\n');
  await writeFile(path.join(base, 'outside', 'o.ts'), 'OUTSIDE\n');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function readMany(rules: PolicyRules = {}) {
  const ctx: EffectContext = {
    agentId: 'a1',
    agentType: 'searcher',
    projectDir: project,
    extraRoots: [],
    homeDir: path.join(base, 'home'),
    mode: 'default',
    rules,
    records: [],
    protect: [],
    sandbox: sandboxOff(),
    approvals: new ApprovalBroker(nonInteractiveResolver()),
    audit: undefined,
    signal: new AbortController().signal,
    pauseClock: () => () => undefined,
  };
  const handler = effectHandlers(ctx)['fs.readMany'];
  if (!handler) throw new Error('no fs.readMany handler');
  return handler;
}

describe('fs.readMany with a glob', () => {
  it('walks, judges and reads in one call', async () => {
    const answer = await readMany()({ paths: [], glob: { pattern: '**/*' }, packed: true });
    if (!answer.ok) throw new Error(answer.error.message);
    expect(answer.value.packed?.paths).toEqual(['src/a.ts']);
    expect(answer.value.skipped).toEqual([{ path: '.env', reason: expect.stringMatching(/sensitive file/) }]);
    expect(answer.value.truncated).toBe(false);
  });

  it('refuses a walk the fs.glob call would be refused: outside the project, or by a Glob rule', async () => {
    const outside = await readMany()({ paths: [], glob: { pattern: '*', path: '../outside' } });
    expect(outside).toMatchObject({ ok: false, error: { code: 'path_outside_project' } });
    const climbing = await readMany()({ paths: [], glob: { pattern: '../outside/*' } });
    expect(climbing).toMatchObject({ ok: false, error: { code: 'path_outside_project' } });
    const denied = await readMany({ deny: ['Glob(src/**)'] })({
      paths: [],
      glob: { pattern: '*', path: 'src' },
    });
    expect(denied).toMatchObject({ ok: false, error: { code: 'permission_denied' } });
  });

  it('takes either paths or a glob, not both', async () => {
    const both = await readMany()({ paths: ['src/a.ts'], glob: { pattern: '**/*' } });
    expect(both).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
