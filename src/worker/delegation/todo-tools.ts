// TodoWrite and TodoRead: a todo list per agent tree, kept by the host (so the UI can show it).
import { TodoReadInput, TodoWriteInput, type TodoItem } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from '../tools/call-capability.js';
import { defineTool, parseToolInput, toolText, type Tool } from '../tools/tool.js';

function render(todos: TodoItem[]): string {
  if (todos.length === 0) return 'The todo list is empty.';
  const mark = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return todos.map((t, i) => `${i + 1}. ${mark[t.status]} ${t.content}`).join('\n');
}

/** TodoWrite: replace the list. */
export const todoWriteTool: Tool = defineTool({
  name: 'TodoWrite',
  description:
    'Replace the todo list for this task. Use it to plan multi-step work and track progress: one item in_progress at a time, mark items completed as soon as they are done.',
  input: TodoWriteInput,
  descriptions: { todos: 'The complete, updated todo list' },
  async run(input, ctx) {
    const parsed = parseToolInput('TodoWrite', TodoWriteInput, input);
    if (!parsed.ok) return parsed.result;
    const envelope = await callCapability(ctx, 'todos.write', { todos: parsed.data.todos });
    if (!envelope.ok) return capabilityFailure(envelope.error);
    return toolText(`Todo list updated:\n${render(envelope.value)}`);
  },
});

/** TodoRead: show the list. */
export const todoReadTool: Tool = defineTool({
  name: 'TodoRead',
  description: 'Read the current todo list for this task.',
  input: TodoReadInput,
  async run(input, ctx) {
    const parsed = parseToolInput('TodoRead', TodoReadInput, input);
    if (!parsed.ok) return parsed.result;
    const envelope = await callCapability(ctx, 'todos.read', {});
    if (!envelope.ok) return capabilityFailure(envelope.error);
    return toolText(render(envelope.value));
  },
});
