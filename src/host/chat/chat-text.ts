// What `/help` and `/permissions` print in the chat.
import type { RuleEntry } from '../capabilities/policy/types.js';
import type { Runtime } from '../runtime.js';

/** The `/help` text. */
export function helpText(): string {
  return [
    'Type a message and press Enter to send it to the main agent. Alt+Enter, Ctrl+J or a line',
    'ending in \\ starts a new line; Up and Down walk through what you sent before.',
    '',
    '@name task     run that agent directly on the task (type @ to pick one)',
    '/agents        list, show, create, edit, delete and reload agents',
    '/tasks         background and @mention runs: status, output, stop',
    '/permissions   the rules in force, and what you allowed for this session',
    '/help          this text',
    '/exit          leave (Ctrl+C twice does too); the transcript path is printed',
    '',
    'Approvals: y allows once, n or Esc denies this call, a allows calls like it for the rest of',
    'the session, d shows the full input. Keys are ignored for a moment after a new prompt appears.',
    'Esc interrupts the main turn (background agents go on). With the composer empty, Down selects',
    'an agent in the tree; Esc then cancels that agent.',
  ].join('\n');
}

function ruleList(label: string, rules: readonly RuleEntry[] | undefined): string[] {
  const list = (rules ?? []).map((r) => (typeof r === 'string' ? r : r.rule));
  return list.length === 0 ? [`${label}: (none)`] : [`${label}:`, ...list.map((r) => `  ${r}`)];
}

/** The `/permissions` text: mode, rules from config, and the session's "always" grants. */
export function permissionsText(runtime: Runtime, agent: string): string {
  const p = runtime.config.permissions;
  const definition = runtime.registry.agents.find((a) => a.name === agent);
  const mode = definition?.permissionMode
    ? `${p.defaultMode} (the ${agent} agent asks for ${definition.permissionMode}; the stricter one applies)`
    : p.defaultMode;
  const session = runtime.approvals.sessionRules();
  return [
    `mode: ${mode}`,
    `sandbox: ${runtime.config.sandbox.mode}`,
    ...ruleList('deny (always wins)', p.deny),
    ...ruleList('ask', p.ask),
    ...ruleList('allow', p.allow),
    ...(session.length === 0
      ? ['allowed for this session: (none)']
      : ['allowed for this session:', ...session.map((r) => `  ${r}`)]),
    ...(p.additionalDirectories.length > 0
      ? ['additional directories:', ...p.additionalDirectories.map((d) => `  ${d}`)]
      : []),
    'Rules come from .cadre/config.json and ~/.cadre/config.json (permissions.allow / ask / deny).',
  ].join('\n');
}

/** The task that asks a model to draft an agent file from a person's one-line description. */
export function draftPrompt(description: string): string {
  return [
    'Write a cadre agent definition file for this request (quoted as data):',
    JSON.stringify(description),
    '',
    'Reply with only the file, nothing before or after it:',
    '- YAML front matter between two `---` lines with: `name` (lowercase words joined by hyphens),',
    '  `description` (one or two sentences: what the agent does and when to use it), `tools` (a comma',
    '  list of only what the job needs, from Read, Write, Edit, Glob, Grep, LS, Bash, WebFetch,',
    '  TodoWrite, TodoRead), and `model` (haiku, sonnet, opus or inherit).',
    '- Then the system prompt, 15 to 40 lines in the second person: its role, how to work step by',
    '  step, its rules, and the shape of its final report.',
    'Do not create or change any file, and do not use tools unless you need to look at the project.',
  ].join('\n');
}
