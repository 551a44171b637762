// A lead agent with its subagents defined in code: the lead delegates with the Task tool, and may
// spawn only the agent types its `Task(...)` entry names.
//
//   ANTHROPIC_API_KEY=... npx tsx examples/lead-agent.ts [project-dir] "what does this project do?"
import { createRuntime, type AgentEvent, type AgentInput } from 'cadre';

const dir = process.argv[2] ?? process.cwd();
const question = process.argv[3] ?? 'Describe this project: its purpose, layout and tests.';

const agents: Record<string, AgentInput> = {
  lead: {
    description: 'Answers questions about a project by delegating the reading to scouts.',
    prompt:
      'You coordinate scouts. Split the question, send each part to a scout with the Task tool, then merge their findings.',
    tools: ['Task(scout)'],
  },
  scout: {
    description: 'Reads part of a project and reports what it found, with file:line references.',
    prompt: 'You are a scout. Read only what the task asks about and report briefly.',
    tools: ['Read', 'Grep', 'Glob'],
    model: 'haiku',
    maxTurns: 10,
  },
};

await using runtime = await createRuntime({ cwd: dir, agents });
const onEvent = (event: AgentEvent) => {
  if (event.type === 'agent-start') console.error(`${'  '.repeat(event.depth)}▶ ${event.agentType}`);
};
const out = await runtime.run({ subagent_type: 'lead', prompt: question }, { onEvent });
console.log(out.result);
process.exitCode = out.status === 'completed' ? 0 : 1;
