// fs.write as a worker calls it when the write asks: the approval shows a diff against the file it
// replaces, read as the Read tool reads it, so what Read refuses to show (a private key under an
// innocent name) never reaches a prompt either, even from a worker that skipped its own read guard.
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../../src/host/approvals/broker.js';
import { callbackResolver } from '../../../src/host/approvals/resolvers.js';
import type { ApprovalRequest } from '../../../src/host/approvals/types.js';
import { effectHandlers, type EffectContext } from '../../../src/host/capabilities/fs-handlers.js';
import { sandboxOff } from '../../support/sandbox-off.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-KEY-BODY\n-----END OPENSSH PRIVATE KEY-----\n';
let project: string;

beforeAll(async () => {
  project = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-write-preview-')));
  await writeFile(path.join(project, 'notes.txt'), 'old notes\n');
  await writeFile(path.join(project, 'backup.txt'), KEY);
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

/** The fs.write handler of a run whose every ask is answered "deny", with the requests it saw. */
function write() {
  const asked: ApprovalRequest[] = [];
  const ctx: EffectContext = {
    agentId: 'w1',
    agentType: 'writer',
    projectDir: project,
    extraRoots: [],
    homeDir: path.join(project, '..', 'home'),
    mode: 'default',
    rules: {},
    records: [],
    protect: [],
    sandbox: sandboxOff(),
    approvals: new ApprovalBroker(
      callbackResolver(async (request) => {
        asked.push(request);
        return { decision: 'deny', reason: 'just looking' };
      }),
    ),
    audit: undefined,
    signal: new AbortController().signal,
    pauseClock: () => () => undefined,
  };
  const handler = effectHandlers(ctx)['fs.write'];
  if (!handler) throw new Error('no fs.write handler');
  return { handler, asked };
}

describe('the approval of a write', () => {
  it('shows the change against the current file', async () => {
    const { handler, asked } = write();
    const answer = await handler({ path: 'notes.txt', content: 'new notes\n' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'approval_denied' } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ action: 'edit notes.txt', capability: 'fs.write' });
    expect(asked[0]?.preview).toMatch(/- old notes[\s\S]*\+ new notes/);
  });

  it('never shows a file that Read would refuse, and the file is left as it was', async () => {
    const { handler, asked } = write();
    const answer = await handler({ path: 'backup.txt', content: 'replaced\n' });
    expect(answer).toMatchObject({ ok: false, error: { code: 'approval_denied' } });
    expect(asked[0]?.preview).toMatch(/^\(no preview: /);
    expect(JSON.stringify(asked)).not.toContain('SECRET-KEY-BODY');
    expect(await readFile(path.join(project, 'backup.txt'), 'utf8')).toBe(KEY);
  });
});
