// Which definition of each agent name is in effect: sources are taken highest first, the first
// valid definition of a name wins and records the ones it hides, and a broken definition hides
// nothing (with a warning when a lower one is used in its place). Pure: parses come in as values.
import {
  AgentSource,
  type AgentDefinition,
  type LoadedAgent,
  type RegistryIssue,
} from '../../shared/agent-definition.js';
import { agentKey } from '../../shared/agent-name.js';
import type { ParsedAgent } from './parse-agent.js';

/** The sources in precedence order, highest first. */
export const SOURCE_ORDER: readonly AgentSource[] = AgentSource.options;

/** One parsed definition and where it came from. */
export interface Candidate {
  source: AgentSource;
  path: string;
  relativePath?: string;
  parsed: ParsedAgent;
}

/** The agents in effect (sorted by name) and the issues the candidates carried or raised. */
export interface Resolved {
  agents: LoadedAgent[];
  errors: RegistryIssue[];
  warnings: RegistryIssue[];
}

/** Resolves precedence over the candidates of every source. */
export function resolvePrecedence(bySource: ReadonlyMap<AgentSource, readonly Candidate[]>): Resolved {
  const errors: RegistryIssue[] = [];
  const warnings: RegistryIssue[] = [];
  // Keyed by agentKey: names that differ only in case are one agent.
  const winners = new Map<string, LoadedAgent>();
  const failed = new Map<string, { name: string; candidate: Candidate }>();
  for (const source of SOURCE_ORDER) {
    for (const candidate of bySource.get(source) ?? []) {
      errors.push(...candidate.parsed.errors);
      warnings.push(...candidate.parsed.warnings);
      const agent = candidate.parsed.agent;
      const name = agent?.name ?? candidate.parsed.name;
      if (name === undefined) continue;
      const key = agentKey(name);
      const winner = winners.get(key);
      // Only a valid definition is hidden; a broken one is reported above and hides nothing.
      if (winner && agent) winner.overrides.push({ source, path: candidate.path });
      else if (agent) winners.set(key, loaded(agent, candidate));
      else if (!failed.has(key)) failed.set(key, { name, candidate });
    }
  }
  for (const [key, { name, candidate: broken }] of failed) {
    const used = winners.get(key);
    if (used && SOURCE_ORDER.indexOf(used.source) > SOURCE_ORDER.indexOf(broken.source)) {
      warnings.push({
        path: broken.path,
        message: `"${name}" failed to load here, so the lower-precedence ${used.source} definition (${used.path}) is in effect`,
      });
    }
  }
  const agents = [...winners.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, agent]) => agent);
  return { agents, errors, warnings };
}

// The definition plus its provenance. A parse's definition is used once, so it is extended in
// place: copying would read a cached definition's prompt, which is decoded only when read.
function loaded(agent: AgentDefinition, candidate: Candidate): LoadedAgent {
  const out = agent as LoadedAgent;
  out.source = candidate.source;
  out.path = candidate.path;
  out.overrides = [];
  if (candidate.relativePath !== undefined) out.relativePath = candidate.relativePath;
  return out;
}

/**
 * Two files of one source with one name (in any of its subfolders, in any case): the first by
 * relative path wins, the other is an error naming both.
 */
export function dropDuplicates(candidates: readonly Candidate[], errors: RegistryIssue[]): Candidate[] {
  const seen = new Map<string, string>();
  return candidates.filter((c) => {
    const name = c.parsed.agent?.name;
    if (name === undefined) return true;
    const first = seen.get(agentKey(name));
    if (first === undefined) {
      seen.set(agentKey(name), c.path);
      return true;
    }
    errors.push({
      path: c.path,
      field: 'name',
      message: `duplicate agent name "${name}": ${first} defines it too; that file is used and this one is ignored`,
    });
    return false;
  });
}
