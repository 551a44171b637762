// What `/agents` does to agent files: a template for a new agent, a model's draft cut out of its
// reply, validation with the registry's own parser before anything is saved, saving to the
// project or user scope, and deleting (built-ins and config-defined agents are refused with the
// way to change them instead).
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedAgent, RegistryIssue } from '../../shared/agent-definition.js';
import { formatIssue } from '../registry/format-issue.js';
import { parseAgentFile } from '../registry/parse-agent.js';

/** Where a new agent is saved. */
export type AgentScope = 'project' | 'user';

/** The directory of a scope. */
export function scopeDir(scope: AgentScope, dirs: { cwd: string; home: string }): string {
  return path.join(scope === 'project' ? dirs.cwd : dirs.home, '.cadre', 'agents');
}

/** A starting point for a new agent. */
export function agentTemplate(name: string, description: string): string {
  return [
    '---',
    `name: ${name}`,
    `description: ${JSON.stringify(description || 'What this agent does, and when to use it.')}`,
    'tools: Read, Glob, Grep, LS',
    'model: inherit',
    '---',
    `You are ${name}, a specialised agent. You receive one task and report back; nobody sees your`,
    'intermediate messages, so your final answer must stand on its own.',
    '',
    '## How to work',
    '1. Restate the goal in one sentence and decide what "done" means.',
    '2. Gather the context you need with the tools you have, then do the task.',
    '',
    '## Final report',
    'Lead with the answer, then the details that matter, with `path:line` references.',
    '',
  ].join('\n');
}

/** The agent file in a model's reply: the first block that starts with front matter. */
export function draftFromReply(reply: string): string | undefined {
  const fenced = /```(?:markdown|md)?\n(---\n[\s\S]*?)```/.exec(reply);
  if (fenced?.[1]) return fenced[1].trimEnd() + '\n';
  const start = reply.search(/^---\s*$/m);
  return start === -1 ? undefined : reply.slice(start).trimEnd() + '\n';
}

/** A checked draft: the agent it defines, or what is wrong with it. */
export interface CheckedDraft {
  name?: string;
  errors: RegistryIssue[];
  warnings: RegistryIssue[];
}

/** Checks a draft with the registry's parser, as if it were saved at `file`. */
export function checkDraft(file: string, content: string): CheckedDraft {
  const parsed = parseAgentFile(file, content);
  return {
    ...(parsed.agent ? { name: parsed.agent.name } : {}),
    errors: parsed.errors,
    warnings: parsed.warnings,
  };
}

/** Checks a draft as it would be saved in `dir` (as `<its name>.md`). */
export function checkDraftIn(dir: string, content: string): CheckedDraft {
  const probe = checkDraft(path.join(dir, 'draft.md'), content);
  return probe.name ? checkDraft(path.join(dir, `${probe.name}.md`), content) : probe;
}

/** One line per problem, for the person reading the draft. */
export function problems(draft: CheckedDraft): string[] {
  return [
    ...draft.errors.map((e) => `error: ${formatIssue(e)}`),
    ...draft.warnings.map((w) => `warning: ${formatIssue(w)}`),
  ];
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Saves a valid draft as `<scope>/.cadre/agents/<name>.md`. Refuses an invalid draft (the errors
 * are the message) and an existing file unless `overwrite`. Returns the path.
 */
export async function saveAgent(
  scope: AgentScope,
  content: string,
  dirs: { cwd: string; home: string },
  overwrite = false,
): Promise<string> {
  const dir = scopeDir(scope, dirs);
  const probe = checkDraftIn(dir, content);
  if (!probe.name || probe.errors.length > 0)
    throw new Error(`the agent is not valid:\n${problems(probe).join('\n')}`);
  const file = path.join(dir, `${probe.name}.md`);
  if (!overwrite && (await exists(file))) throw new Error(`${file} exists already; edit it instead`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, content);
  return file;
}

/** Why an agent cannot be deleted from the chat, or undefined when its file can be removed. */
export function deleteRefusal(agent: Pick<LoadedAgent, 'name' | 'source' | 'path'>): string | undefined {
  if (agent.source === 'builtin')
    return `${agent.name} is built in and cannot be deleted; define an agent with the same name to replace it`;
  if (agent.source === 'project-config' || agent.source === 'user-config' || agent.source === 'cli')
    return `${agent.name} is defined in ${agent.path} (${agent.source === 'cli' ? 'the --agents flag' : 'its "agents" field'}); remove it there`;
  return undefined;
}

/** Deletes an agent's file (see `deleteRefusal`). */
export async function deleteAgent(agent: Pick<LoadedAgent, 'name' | 'source' | 'path'>): Promise<void> {
  const refusal = deleteRefusal(agent);
  if (refusal) throw new Error(refusal);
  await rm(agent.path);
}
