// Checks the fields of one definition (from front matter or a JSON entry) and builds the resolved
// AgentDefinition. Unknown keys are errors with a hint and stop the agent from loading, because a
// misspelt `tools` key would otherwise leave the agent with every tool.
import type * as z from 'zod';
import {
  AGENT_DEFAULTS,
  type AgentDefinition,
  AgentFrontmatter,
  IGNORED_FIELDS,
  type RegistryIssue,
} from '../../shared/agent-definition.js';
import { closest } from '../../shared/closest.js';
import { modelNameProblem } from '../agents/model-resolve.js';
import { describeValue, issueMessage, valueAt } from '../config/zod-messages.js';
import { sortByLine } from './format-issue.js';
import { resolveTools } from './resolve-tools.js';

/** Where the fields came from, for messages, and the defaults to apply. */
export interface BuildContext {
  path: string;
  /** Prefix for field names in messages, e.g. `agents.debugger` inside a config file. */
  fieldPrefix?: string;
  /** File line of each top-level key, when the source has lines. */
  keyLines?: ReadonlyMap<string, number>;
  /** Defaults for limits the definition leaves out (config.json can change them). */
  defaults?: { timeout: number; idleTimeout: number };
}

/** One parsed definition: the agent when it is valid, and every problem found. */
export interface ParsedAgent {
  agent?: AgentDefinition;
  /** The name the definition claims, when it has a usable one (even if other fields are bad). */
  name?: string;
  errors: RegistryIssue[];
  warnings: RegistryIssue[];
}

const KNOWN_FIELDS: readonly string[] = Object.keys(AgentFrontmatter.shape);

// Spellings from other tools that edit distance alone would map to the wrong field. A Map, so a
// key such as `constructor` finds nothing instead of Object.prototype's members.
const PROMPT_HINT = 'prompt (or the Markdown body)';
const KEY_HINTS = new Map<string, string>([
  ['allowed-tools', 'tools'],
  ['allowedtools', 'tools'],
  ['allowed_tools', 'tools'],
  ['tool', 'tools'],
  ['denied-tools', 'disallowedTools'],
  ['deniedtools', 'disallowedTools'],
  ['system-prompt', PROMPT_HINT],
  ['systemprompt', PROMPT_HINT],
  ['system_prompt', PROMPT_HINT],
  ['instructions', PROMPT_HINT],
]);

const LARGE_PROMPT = 200_000;

/** Validates `fields` and builds the definition; `body` is the Markdown body (undefined for JSON entries). */
export function buildDefinition(
  fields: Record<string, unknown>,
  body: string | undefined,
  ctx: BuildContext,
): ParsedAgent {
  const errors: RegistryIssue[] = [];
  const warnings: RegistryIssue[] = [];
  const issue = (field: string | undefined, message: string): RegistryIssue => {
    const out: RegistryIssue = { path: ctx.path, message };
    const top = field?.split('.')[0];
    const line = top === undefined ? undefined : ctx.keyLines?.get(top);
    if (line !== undefined) out.line = line;
    if (field !== undefined) out.field = ctx.fieldPrefix ? `${ctx.fieldPrefix}.${field}` : field;
    return out;
  };

  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (KNOWN_FIELDS.includes(key)) known[key] = value;
    else if (IGNORED_FIELDS.includes(key))
      warnings.push(issue(key, 'is a Claude Code field cadre does not implement; ignored'));
    else errors.push(issue(key, `unknown field${hintFor(key)}`));
  }

  const parsed = AgentFrontmatter.safeParse(known);
  const name = typeof known.name === 'string' && isAgentName(known.name) ? known.name : undefined;
  if (!parsed.success) {
    for (const zi of parsed.error.issues)
      errors.push(issue(zi.path.map(String).join('.') || undefined, zodMessage(zi, known)));
    return withName({ errors: sortByLine(errors), warnings }, name);
  }
  const def = parsed.data;

  const tools = resolveTools({
    tools: def.tools,
    disallowedTools: def.disallowedTools,
    profile: def.profile,
  });
  for (const t of tools.errors) errors.push(issue(t.field, t.message));

  const bodyText = body?.trim() ?? '';
  if (body !== undefined && bodyText !== '' && def.prompt !== undefined) {
    errors.push(
      issue(
        'prompt',
        'is set twice: the Markdown body is the system prompt; remove the prompt field or the body',
      ),
    );
  }
  const prompt = bodyText !== '' ? bodyText : (def.prompt?.trim() ?? '');
  if (prompt === '')
    warnings.push(
      issue(body === undefined ? 'prompt' : undefined, 'has no system prompt: the agent gets only the task'),
    );
  if (prompt.length > LARGE_PROMPT) {
    const tokens = Math.round(prompt.length / 4 / 1000);
    warnings.push(
      issue(
        body === undefined ? 'prompt' : undefined,
        `system prompt is ${Math.round(prompt.length / 1024)} KiB (about ${tokens}k tokens); it may not fit the model's context`,
      ),
    );
  }

  const model = def.model ?? AGENT_DEFAULTS.model;
  const modelProblem = modelNameProblem(model);
  if (modelProblem !== undefined) errors.push(issue('model', modelProblem));

  if (errors.length > 0) return withName({ errors: sortByLine(errors), warnings }, name);
  const defaults = ctx.defaults ?? AGENT_DEFAULTS;
  const agent: AgentDefinition = {
    name: def.name,
    description: def.description.trim(),
    prompt,
    tools: tools.tools,
    disallowedTools: tools.disallowedTools,
    model,
    timeout: def.timeout ?? defaults.timeout,
    idleTimeout: def.idleTimeout ?? defaults.idleTimeout,
    exposeAsTool: def.exposeAsTool ?? false,
    maxDepth: def.maxDepth ?? AGENT_DEFAULTS.maxDepth,
  };
  if (tools.taskTypes !== undefined) agent.taskTypes = tools.taskTypes;
  if (def.maxTurns !== undefined) agent.maxTurns = def.maxTurns;
  if (def.permissionMode !== undefined) agent.permissionMode = def.permissionMode;
  if (def.tokenBudget !== undefined) agent.tokenBudget = def.tokenBudget;
  if (def.output !== undefined) agent.output = def.output;
  if (def.input !== undefined) agent.input = def.input;
  if (def.isolation !== undefined) agent.isolation = def.isolation;
  if (def.color !== undefined) agent.color = def.color;
  return { agent, name: agent.name, errors, warnings };
}

function isAgentName(value: string): boolean {
  return AgentFrontmatter.shape.name.safeParse(value).success;
}

function withName(result: ParsedAgent, name: string | undefined): ParsedAgent {
  if (name !== undefined) result.name = name;
  return result;
}

function hintFor(key: string): string {
  const hint = KEY_HINTS.get(key.toLowerCase()) ?? closest(key, [...KNOWN_FIELDS, ...IGNORED_FIELDS]);
  return hint === undefined ? '' : ` (did you mean "${hint}"?)`;
}

function zodMessage(issue: z.core.$ZodIssue, fields: Record<string, unknown>): string {
  const top = issue.path[0];
  if (
    issue.code === 'invalid_type' &&
    top === 'name' &&
    issue.path.length === 1 &&
    fields.name === undefined
  ) {
    return 'is required (lowercase words joined by hyphens, e.g. code-reviewer)';
  }
  if (issue.code === 'invalid_union' && (top === 'tools' || top === 'disallowedTools')) {
    const value = valueAt(fields, issue.path);
    const what = Array.isArray(value) ? 'a list with an item that is not text' : describeValue(value);
    return `must be a comma-separated string or a list of tool names (got ${what})`;
  }
  return issueMessage(issue, fields);
}
