// The agent definition: the frontmatter / config.json schema as written by users, and the resolved
// definition the registry hands to the runtime (tools expanded, defaults applied, source recorded).
import * as z from 'zod';
import { RANGES } from './ranges.js';
import { PermissionMode } from './task.js';
import { Profile } from './tools.js';

/** Agent names: lowercase words joined by hyphens. */
export const AgentName = z
  .string()
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    'must be lowercase letters and digits joined by hyphens (e.g. code-reviewer)',
  );

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
});
/** Frontmatter as written. */
export type AgentFrontmatter = z.infer<typeof AgentFrontmatter>;

/** Claude Code fields cadre loads but ignores (with a warning). */
export const IGNORED_FIELDS: readonly string[] = [
  'skills',
  'hooks',
  'memory',
  'effort',
  'mcpServers',
  'initialPrompt',
  'background',
  'forkContext',
  'argument-hint',
  'version',
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
});
/** A resolved definition. */
export type AgentDefinition = z.infer<typeof AgentDefinition>;

/** A definition with its provenance, as the registry returns it. */
export interface LoadedAgent extends AgentDefinition {
  source: AgentSource;
  path: string;
  /** Lower-precedence definitions of the same name that this one hides. */
  overrides: { source: AgentSource; path: string }[];
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

/** Replaces `{{task}}` in a system prompt; reports whether the task was placed. */
export function renderPrompt(prompt: string, task: string): { system: string; taskInPrompt: boolean } {
  if (!prompt.includes('{{task}}')) return { system: prompt, taskInPrompt: false };
  return { system: prompt.split('{{task}}').join(task), taskInPrompt: true };
}
