// The library API against the config's deny rules and other trees' records: an agent defined in
// code that asks for bypassPermissions and every tool, in a runtime started in bypassPermissions
// with an approval resolver that allows everything, still cannot pass a deny rule of the project's
// config (file tools and commands alike), and cannot resume a run another tree started. The real
// SDK speaks HTTP to the fake Messages API.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalResolver } from '../../src/index.js';
import { textReply, toolUseReply, type RequestBlock } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from '../host/agents/harness.js';

const CANARY = 'CANARY-lib-5e0c21';
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const allowAll: ApprovalResolver = {
  interactive: true,
  resolve: () => Promise.resolve({ decision: 'allow', scope: 'once' }),
};
const config = JSON.stringify({
  permissions: { deny: ['Read(secret.txt)', 'Edit(locked/**)', 'Bash(rm:*)'] },
});
const text = (b: RequestBlock | undefined) => JSON.stringify(b?.content ?? '');

describe('an agent defined in code, in bypassPermissions, with an approver that allows all', () => {
  it("passes none of the config's deny rules, with file tools or commands", async () => {
    let seen: RequestBlock[] = [];
    h = await startHarness(
      {
        boss: ({ turn, results }) => {
          if (turn > 0) {
            seen = results;
            return textReply('tried');
          }
          return toolUseReply([
            { name: 'Read', input: { file_path: 'secret.txt' } },
            { name: 'Write', input: { file_path: 'locked/new.txt', content: 'pwned\n' } },
            { name: 'Bash', input: { command: 'rm -f keep.txt' } },
            { name: 'Bash', input: { command: 'cat secret.txt' } },
          ]);
        },
      },
      { boss: { description: 'takes over', prompt: '[boss] go', permissionMode: 'bypassPermissions' } },
      {
        permissionMode: 'bypassPermissions',
        approvals: allowAll,
        files: {
          '.cadre/config.json': config,
          'secret.txt': `${CANARY}\n`,
          'locked/a.txt': 'original\n',
          'keep.txt': 'keep\n',
        },
      },
    );
    const out = await h.runtime.run({ subagent_type: 'boss', prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(seen).toHaveLength(4);
    expect(seen.slice(0, 3).map((r) => r.is_error)).toEqual([true, true, true]);
    expect(text(seen[0])).toMatch(/Read\(secret\.txt\)/);
    expect(text(seen[1])).toMatch(/Edit\(locked\/\*\*\)/);
    expect(text(seen[2])).toMatch(/Bash\(rm:\*\)/);
    expect(text(seen[3])).toMatch(/\[sandbox: /);
    // A deny rule on reading binds commands too: the sandbox hides the file.
    for (const req of h.server.requests) expect(JSON.stringify(req.body)).not.toContain(CANARY);
    expect(await readFile(path.join(h.dir, 'locked', 'a.txt'), 'utf8')).toBe('original\n');
    await expect(readFile(path.join(h.dir, 'locked', 'new.txt'))).rejects.toThrow();
    expect(await readFile(path.join(h.dir, 'keep.txt'), 'utf8')).toBe('keep\n');
  });
});

describe('resume from code', () => {
  it("a subagent cannot resume another tree's run; a person's resume keeps the agent type", async () => {
    let refusal = '';
    h = await startHarness(
      {
        reader: () => textReply(`read ${CANARY}`),
        lead: ({ turn, results, req }) => {
          if (turn > 0) {
            refusal = text(results[0]);
            return textReply('done');
          }
          const id =
            /resume ([A-Za-z0-9_.-]+)/.exec(JSON.stringify(req.body.messages[0]?.content))?.[1] ?? '';
          return toolUseReply([
            { name: 'Task', input: { subagent_type: 'reader', description: 'go', prompt: 'go', resume: id } },
          ]);
        },
      },
      {
        reader: { description: 'reads', prompt: '[reader] read', tools: ['Read'] },
        lead: { description: 'leads', prompt: '[lead] lead', tools: ['Task'] },
      },
      { approvals: allowAll },
    );
    const first = await h.runtime.task({ subagent_type: 'reader', prompt: 'remember' });
    expect((await first.result).status).toBe('completed');
    const lead = await h.runtime.run({ subagent_type: 'lead', prompt: `resume ${first.agentId}` });
    expect(lead.status).toBe('completed');
    expect(refusal).toMatch(/no finished run/);
    const leadBodies = h.server.requests.filter((r) => JSON.stringify(r.body.system).includes('[lead]'));
    for (const req of leadBodies) expect(JSON.stringify(req.body)).not.toContain(CANARY);
    // A person may resume it, but only as the agent type it was.
    await expect(
      h.runtime.run({ subagent_type: 'lead', prompt: 'x', resume: first.agentId }),
    ).rejects.toThrow(/can be resumed only as "reader"/);
  });
});
