// Checks the fields of one definition (from front matter or a JSON entry) and builds the resolved
// AgentDefinition. Severity follows Claude Code, safety follows cadre: an unknown key that could be
// a misspelt known key (`allowed-tools`, `Tools`, `modle`) is an error with a hint and stops the
// agent from loading, because a misspelt `tools` would otherwise leave it with every tool; a key
// far from every known key (`author`, `tags`, `category`) is metadata, ignored with a warning.
import type * as z from 'zod';
import {
  AGENT_DEFAULTS,
  type AgentDefinition,
  AgentFrontmatter,
  IGNORED_FIELDS,
  type RegistryIssue,
} from '../../shared/agent-definition.js';
import { isAgentName } from '../../shared/agent-name.js';
import { modelNameProblem } from '../agents/model-resolve.js';
import { describeValue, issueMessage, valueAt } from '../config/zod-messages.js';
import { sortByLine } from './format-issue.js';
import { parseMcpServersField } from './mcp-servers-field.js';
import { staticNotInEffect } from './not-in-effect.js';
import { unknownKeyProblem } from './unknown-keys.js';
import { resolveTools } from './resolve-tools.js';
import { DefinitionIssues, type IssueSite } from './definition-issues.js';
import { systemPrompt } from './system-prompt.js';

/** Where the fields came from, for messages, and the defaults to apply. */
export interface BuildContext extends IssueSite {
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

type Frontmatter = z.infer<typeof AgentFrontmatter>;

/** Validates `fields` and builds the definition; `body` is the Markdown body (undefined for JSON entries). */
export function buildDefinition(
  fields: Record<string, unknown>,
  body: string | undefined,
  ctx: BuildContext,
): ParsedAgent {
  const issues = new DefinitionIssues(ctx);
  const known = knownFields(fields, issues);
  const parsed = AgentFrontmatter.safeParse(known);
  const name = typeof known.name === 'string' && isAgentName(known.name) ? known.name : undefined;
  if (!parsed.success) {
    for (const zi of parsed.error.issues)
      issues.error(zi.path.map(String).join('.') || undefined, zodMessage(zi, known));
    return issues.failed(name);
  }
  const def = parsed.data;

  const tools = resolveTools({
    tools: def.tools,
    disallowedTools: def.disallowedTools,
    profile: def.profile,
  });
  for (const t of tools.errors) issues.error(t.field, t.message);
  for (const t of tools.warnings) issues.warn(t.field, t.message);
  for (const n of staticNotInEffect(def)) issues.warn(n.field, `${n.item}: not in effect: ${n.reason}`);
  const mcp = parseMcpServersField(def.mcpServers);
  for (const m of mcp.issues) issues.error(m.field, m.message);
  const prompt = systemPrompt(body, def.prompt, issues);
  const model = def.model ?? AGENT_DEFAULTS.model;
  const modelProblem = modelNameProblem(model);
  if (modelProblem !== undefined) issues.error('model', modelProblem);

  if (issues.errors.length > 0) return issues.failed(name);
  const agent = assemble(def, { prompt, model, tools, mcpServers: mcp.refs }, ctx.defaults ?? AGENT_DEFAULTS);
  return { agent, name: agent.name, errors: issues.errors, warnings: sortByLine(issues.warnings) };
}

/**
 * The fields cadre knows. A Claude Code field cadre does not implement, or a key far from every
 * known one, is ignored with a warning; a key that looks like a misspelt known one is an error.
 */
function knownFields(fields: Record<string, unknown>, issues: DefinitionIssues): Record<string, unknown> {
  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (KNOWN_FIELDS.includes(key)) known[key] = value;
    else if (IGNORED_FIELDS.includes(key))
      issues.warn(key, 'is a Claude Code field cadre does not implement; ignored');
    else {
      const problem = unknownKeyProblem(key);
      if (problem === undefined) issues.warn(key, 'unknown field; ignored');
      else issues.error(key, problem);
    }
  }
  return known;
}

/** What the checks resolved, beside the fields taken as they are. */
interface Resolved {
  prompt: string;
  model: string;
  tools: ReturnType<typeof resolveTools>;
  mcpServers: ReturnType<typeof parseMcpServersField>['refs'];
}

/** The definition of a valid agent, with defaults for what it leaves out. */
function assemble(
  def: Frontmatter,
  resolved: Resolved,
  defaults: { timeout: number; idleTimeout: number },
): AgentDefinition {
  const { tools } = resolved;
  const agent: AgentDefinition = {
    name: def.name,
    description: def.description.trim(),
    prompt: resolved.prompt,
    tools: tools.tools,
    disallowedTools: tools.disallowedTools,
    model: resolved.model,
    timeout: def.timeout ?? defaults.timeout,
    idleTimeout: def.idleTimeout ?? defaults.idleTimeout,
    exposeAsTool: def.exposeAsTool ?? false,
    maxDepth: def.maxDepth ?? AGENT_DEFAULTS.maxDepth,
  };
  if (tools.taskTypes !== undefined) agent.taskTypes = tools.taskTypes;
  if (tools.allTools) agent.inheritsMcpTools = true;
  if (resolved.mcpServers.length > 0) agent.mcpServers = resolved.mcpServers;
  if (def.maxTurns !== undefined) agent.maxTurns = def.maxTurns;
  if (def.permissionMode !== undefined) agent.permissionMode = def.permissionMode;
  if (def.tokenBudget !== undefined) agent.tokenBudget = def.tokenBudget;
  if (def.output !== undefined) agent.output = def.output;
  if (def.input !== undefined) agent.input = def.input;
  if (def.isolation !== undefined) agent.isolation = def.isolation;
  if (def.color !== undefined) agent.color = def.color;
  return agent;
}

function zodMessage(issue: z.core.$ZodIssue, fields: Record<string, unknown>): string {
  const top = issue.path[0];
  if (
    issue.code === 'invalid_type' &&
    top === 'name' &&
    issue.path.length === 1 &&
    fields.name === undefined
  ) {
    return 'is required (e.g. name: code-reviewer)';
  }
  if (issue.code === 'invalid_union' && (top === 'tools' || top === 'disallowedTools')) {
    const value = valueAt(fields, issue.path);
    const what = Array.isArray(value) ? 'a list with an item that is not text' : describeValue(value);
    return `must be a comma-separated string or a list of tool names (got ${what})`;
  }
  return issueMessage(issue, fields);
}
