// Claude Code's agent names and tool names at run time, end to end through the real SDK and the
// fake server: names with capitals, `_` and `.` are found in any case, `Agent(...)` limits spawns
// as `Task(...)` does, and a tool cadre lacks is simply not offered.
import { afterEach, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Claude Code names at run time', () => {
  it('Agent(Data_Scientist) spawns it under any case, refuses others, and offers no NotebookEdit', async () => {
    h = await startHarness(
      {
        lead: ({ turn, results }) => {
          if (turn === 0)
            return toolUseReply([
              {
                name: 'Task',
                input: { description: 'a', prompt: 'analyse', subagent_type: 'data_scientist' },
              },
              { name: 'Task', input: { description: 'b', prompt: 'plan it', subagent_type: 'plan' } },
            ]);
          return textReply(
            results
              .map((r) => `${r.is_error === true ? 'ERR' : 'OK'} ${JSON.stringify(r.content)}`)
              .join('\n---\n'),
          );
        },
        scientist: () => textReply('the numbers add up'),
      },
      {
        lead: { tools: ['Agent(Data_Scientist)', 'Read', 'NotebookEdit'], maxDepth: 1 },
        Data_Scientist: { prompt: '[scientist] test agent.', tools: ['Read'] },
      },
    );
    const out = await h.runtime.run({ subagent_type: 'LEAD', prompt: 'go' });
    expect(out.status).toBe('completed');
    expect(out.agentType).toBe('lead');
    const [scientist, planner] = out.result.split('\n---\n');
    expect(scientist).toMatch(/^OK .*the numbers add up/s);
    expect(planner).toMatch(/^ERR .*may only launch: Data_Scientist/s);
    const leadRequest = h.server.requests.find((r) => JSON.stringify(r.body.system ?? '').includes('[lead]'));
    const offered = (leadRequest?.body.tools ?? []).map((t) => t.name);
    expect(offered.sort()).toEqual(['Read', 'Task']);
  });
});
