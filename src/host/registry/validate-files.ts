// Checks named files or directories on their own, outside the precedence order: what
// `cadre agents validate PATH...` reports. `.json` files are checked as config files (their
// `agents` entries included), directories as agents directories, anything else as an agent file.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { RegistryIssue, RegistryResult } from '../../shared/agent-definition.js';
import type { ModelEnv } from '../agents/model-resolve.js';
import { loadConfig, readConfigFile } from '../config.js';
import { markNotInEffect } from './mark-not-in-effect.js';
import { parseAgentEntry, parseAgentFile, type ParsedAgent } from './parse-agent.js';
import { type AgentFileRead, readAgentFile, readAgentFiles } from './read-agent-files.js';

/**
 * The agents each path defines (source `project`; these are not ranked) and every problem found,
 * parsed afresh (never from the registry cache). What would not be in effect is judged with the
 * configuration of `cwd` and `home` and the environment `env`.
 */
export async function validateAgentPaths(
  paths: readonly string[],
  where: { cwd: string; home: string; env: ModelEnv },
): Promise<RegistryResult> {
  const [config, ...results] = await Promise.all([
    loadConfig({ cwd: where.cwd, home: where.home }),
    ...paths.map((p) => validatePath(path.resolve(where.cwd, p))),
  ]);
  const agents = results.flatMap((r) => r.agents);
  return {
    agents,
    errors: results.flatMap((r) => r.errors),
    warnings: [...results.flatMap((r) => r.warnings), ...markNotInEffect(agents, config.merged, where.env)],
  };
}

async function validatePath(target: string): Promise<RegistryResult> {
  const info = await stat(target).catch(() => undefined);
  if (!info)
    return { agents: [], errors: [{ path: target, message: 'no such file or directory' }], warnings: [] };
  if (info.isDirectory()) {
    const read = await readAgentFiles(target, (f): [string, ParsedAgent] => [f.path, parseRead(f)]);
    const result = collect(read.items);
    result.errors.unshift(...read.errors);
    if (read.items.length === 0 && read.errors.length === 0)
      result.warnings.push({ path: target, message: 'no *.md agent files here (subfolders included)' });
    return result;
  }
  if (target.toLowerCase().endsWith('.json')) {
    const config = await readConfigFile(target);
    const entries = Object.entries(config.config.agents ?? {});
    const result = collect(entries.map(([name, entry]) => [target, parseAgentEntry(name, entry, target)]));
    result.errors.unshift(...config.errors);
    return result;
  }
  return collect([[target, parseRead(await readAgentFile(target))]]);
}

function parseRead(read: AgentFileRead): ParsedAgent {
  return 'error' in read ? { errors: [read.error], warnings: [] } : parseAgentFile(read.path, read.content);
}

function collect(parsed: [string, ParsedAgent][]): RegistryResult {
  const errors: RegistryIssue[] = [];
  const warnings: RegistryIssue[] = [];
  const agents: RegistryResult['agents'] = [];
  for (const [where, p] of parsed) {
    errors.push(...p.errors);
    warnings.push(...p.warnings);
    if (p.agent) agents.push({ ...p.agent, source: 'project', path: where, overrides: [] });
  }
  return { agents, errors, warnings };
}
