// The agent definition: the frontmatter / config.json schema as written by users, and the resolved
// definition the registry hands to the runtime (tools expanded, defaults applied, source recorded).
import * as z from 'zod';
import { AGENT_NAME_PATTERN, AGENT_NAME_RULE } from './agent-name.js';
import { McpServerConfig } from './mcp-config.js';
import { RANGES } from './ranges.js';
import { PermissionMode } from './task.js';
import { Profile } from './tools.js';

/** Agent names as Claude Code writes them (see agent-name.ts); looked up case-insensitively. */
const AgentName = z.string().regex(AGENT_NAME_PATTERN, AGENT_NAME_RULE);

const toolList = z.union([z.string(), z.array(z.string())]);

/** The fields a definition may set, in frontmatter or in a config.json `agents` entry. */
export const AgentFrontmatter = z.strictObject({
  name: AgentName,
  description: z.string().min(1, 'must not be empty'),
  prompt: z.string().optional(),
  tools: toolList.optional(),
  disallowedTools: toolList.optional(),
  profile: Profile.optional(),
  model: z.string().min(1).optional(),
  timeout: z.number().positive().max(86_400).optional(),
  idleTimeout: z.number().positive().max(86_400).optional(),
  maxTurns: z.number().int().positive().max(RANGES.maxTurns.max).optional(),
  permissionMode: PermissionMode.optional(),
  tokenBudget: z.number().int().positive().max(RANGES.tokenBudget.max).optional(),
  output: z.union([z.literal('handoff'), z.record(z.string(), z.unknown())]).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  exposeAsTool: z.boolean().optional(),
  maxDepth: z.number().int().min(0).max(16).optional(),
  isolation: z.literal('worktree').optional(),
  color: z.string().optional(),
  /**
   * MCP servers for this agent: names of configured servers, or inline definitions. Checked entry
   * by entry by the registry (see AgentMcpServers), so each problem names its server and field.
   */
  mcpServers: z.unknown().optional(),
});
/** Frontmatter as written. */
export type AgentFrontmatter = z.infer<typeof AgentFrontmatter>;

/**
 * An agent defined in code (`createRuntime({ agents: { reviewer: {...} } })`): the fields of an
 * agent file, keyed by the agent's name, with `prompt` holding the system prompt. Checked exactly
 * as an agent file is.
 */
export type AgentInput = Omit<AgentFrontmatter, 'name' | 'mcpServers'> & {
  name?: string;
  /** Names of configured MCP servers, or inline definitions (`{ playwright: { command: 'npx' } }`). */
  mcpServers?: (string | Record<string, unknown>)[];
};

/** Claude Code fields cadre loads but ignores (with a warning). */
export const IGNORED_FIELDS: readonly string[] = [
  'skills',
  'hooks',
  'memory',
  'effort',
  'initialPrompt',
  'background',
  'forkContext',
  'argument-hint',
];

/** Where a definition came from, highest precedence first. */
export const AgentSource = z.enum([
  'project-config',
  'project',
  'project-claude',
  'cli',
  'user-config',
  'user',
  'user-claude',
  'builtin',
]);
/** A source label. */
export type AgentSource = z.infer<typeof AgentSource>;

/** Defaults applied when a definition leaves a field out. */
export const AGENT_DEFAULTS = { model: 'inherit', timeout: 300, idleTimeout: 120, maxDepth: 0 } as const;

/** A resolved definition: tools expanded to concrete names, defaults applied. */
export const AgentDefinition = z.object({
  name: AgentName,
  description: z.string(),
  /** The system prompt; `{{task}}` is replaced by the task when present. */
  prompt: z.string(),
  /** Concrete tool names (built-ins, `mcp__server__tool`, `mcp__server__*`). */
  tools: z.array(z.string()),
  /** Agent types this agent may spawn with Task; absent = any (when it has Task at all). */
  taskTypes: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()),
  model: z.string(),
  timeout: z.number().positive(),
  idleTimeout: z.number().positive(),
  maxTurns: z.number().int().positive().optional(),
  permissionMode: PermissionMode.optional(),
  tokenBudget: z.number().int().positive().optional(),
  output: z.union([z.literal('handoff'), z.record(z.string(), z.unknown())]).optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  exposeAsTool: z.boolean(),
  maxDepth: z.number().int().min(0),
  isolation: z.literal('worktree').optional(),
  color: z.string().optional(),
  /**
   * True when the agent has every tool (`tools` omitted, `*`, or the full-access profile): it also
   * gets the tools of every configured MCP server.
   */
  inheritsMcpTools: z.boolean().optional(),
  /** Servers the agent names in `mcpServers`: configured ones by name, or inline definitions. */
  mcpServers: z
    .array(z.union([z.object({ name: z.string(), inline: McpServerConfig }), z.object({ name: z.string() })]))
    .optional(),
});
/** A resolved definition. */
export type AgentDefinition = z.infer<typeof AgentDefinition>;

/** Something a definition asks for that is not in effect, and why. */
export interface NotInEffect {
  /** The field it was written in (`tools`, `isolation`, `output`). */
  field: string;
  /** What is not in effect: a tool name, or the field's value. */
  item: string;
  reason: string;
}

/** A definition with its provenance, as the registry returns it. */
export interface LoadedAgent extends AgentDefinition {
  source: AgentSource;
  path: string;
  /** For agent files: the path below the source's agents directory (`backend/api-designer.md`). */
  relativePath?: string;
  /** Lower-precedence definitions of the same name that this one hides. */
  overrides: { source: AgentSource; path: string }[];
  /** What the definition asks for that does not apply (an MCP tool with no server, `isolation`, ...). */
  notInEffect?: NotInEffect[];
}

/** A problem found while loading definitions. `path` names the file (or `--agents`). */
export interface RegistryIssue {
  path: string;
  line?: number;
  field?: string;
  message: string;
}

/** What loading all sources yields: one bad file never hides the good ones. */
export interface RegistryResult {
  agents: LoadedAgent[];
  errors: RegistryIssue[];
  warnings: RegistryIssue[];
}

/**
 * The first user message of a run whose task went into the system prompt through `{{task}}`. The
 * Messages API needs a user message to answer; sending the task there too would give it twice.
 */
export const TASK_IN_PROMPT_MESSAGE = 'Carry out the task given in your instructions.';

/** Replaces `{{task}}` in a system prompt; reports whether the task was placed. */
function renderPrompt(prompt: string, task: string): { system: string; taskInPrompt: boolean } {
  if (!prompt.includes('{{task}}')) return { system: prompt, taskInPrompt: false };
  return { system: prompt.split('{{task}}').join(task), taskInPrompt: true };
}

/**
 * A run's system prompt and first user message: with `{{task}}` in the prompt the task goes there
 * and the message only starts the run; otherwise the task is the message. A resumed run (one with
 * history) always gets its new prompt as a message, since its earlier turns answered another task.
 */
export function openingOf(
  prompt: string,
  task: string,
  resumed: boolean,
): { system: string; message: string } {
  const rendered = renderPrompt(prompt, task);
  return {
    system: rendered.system,
    message: rendered.taskInPrompt && !resumed ? TASK_IN_PROMPT_MESSAGE : task,
  };
}
