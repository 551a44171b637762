// Renders agents for people: the `agents list` table, the `agents show` page, and issue lines.
// Names, paths, descriptions, prompts and issue messages come from agent files and folders: they go
// through the terminal cleaner (made inert unless --raw).
import path from 'node:path';
import type { LoadedAgent, RegistryIssue } from '../../../shared/agent-definition.js';
import { terminalCleaner, type TerminalCleaner } from '../../terminal-text.js';
import { ToolName } from '../../../shared/tools.js';
import { formatIssue } from '../../registry/format-issue.js';

/** The fields `agents list --json` prints per agent: everything but the (possibly huge) prompt. */
export function agentSummary(agent: LoadedAgent): Omit<LoadedAgent, 'prompt'> {
  // Key by key, never reading `prompt`: a cached definition decodes it only when read.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(agent)) if (key !== 'prompt') out[key] = agent[key as keyof LoadedAgent];
  return out as Omit<LoadedAgent, 'prompt'>;
}

/** A compact description of a tool set: `all`, or the names. */
function toolsLabel(agent: Pick<LoadedAgent, 'tools' | 'taskTypes'>): string {
  const all =
    ToolName.options.every((t) => agent.tools.includes(t)) && agent.tools.length === ToolName.options.length;
  if (all && agent.taskTypes === undefined) return 'all';
  return agent.tools
    .map((t) => (t === 'Task' && agent.taskTypes ? `Task(${agent.taskTypes.join(', ')})` : t))
    .join(', ');
}

/**
 * Where a definition lives, short (the SOURCE column says which folder or file): the path below
 * the source's agents folder for agent files, the file name of a config file or `--agents` file.
 */
function definitionPath(agent: Pick<LoadedAgent, 'path' | 'source' | 'relativePath'>): string {
  if (agent.relativePath !== undefined) return agent.relativePath;
  if (agent.source === 'cli' && agent.path === '--agents') return '--agents';
  return path.basename(agent.path);
}

const SAFE = terminalCleaner(false);

/** The `agents list` table. */
export function agentsTable(
  agents: readonly LoadedAgent[],
  width: number,
  clean: TerminalCleaner = SAFE,
): string {
  const rows = agents.map((a) => [
    clean.line(a.name),
    a.source,
    truncateStart(clean.line(definitionPath(a)), 36),
    clean.line(a.model),
    truncate(toolsLabel(a), 32),
    // Only the start of a description fits the column: long ones (pasted examples) are cut first.
    clean.line(oneLine(a.description.slice(0, Math.max(width, 400)))),
  ]);
  const header = ['NAME', 'SOURCE', 'PATH', 'MODEL', 'TOOLS', 'DESCRIPTION'];
  const fixedColumns = header.length - 1;
  const widths = header
    .slice(0, fixedColumns)
    .map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fixed = widths.reduce((sum, w) => sum + w + 2, 0);
  const descWidth = Math.max(20, width - fixed);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < fixedColumns ? cell.padEnd(widths[i] ?? 0) : truncate(cell, descWidth)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The `agents show` page: the resolved definition, its provenance, then the prompt. */
export function agentPage(agent: LoadedAgent, clean: TerminalCleaner = SAFE): string {
  const opt = (value: unknown) => (value === undefined ? '-' : String(value));
  const off = new Set((agent.notInEffect ?? []).map((n) => `${n.field}:${n.item}`));
  const lines: [string, string][] = [
    ['name', agent.name],
    ['source', `${agent.source} (${agent.path})`],
    [
      'overrides',
      agent.overrides.length === 0
        ? '-'
        : agent.overrides.map((o) => `${o.source} (${o.path})`).join('\n              '),
    ],
    ['description', agent.description],
    ['model', agent.model],
    ['tools', agent.tools.map((t) => (off.has(`tools:${t}`) ? `${t} (not in effect)` : t)).join(', ')],
  ];
  if (agent.tools.includes('Task')) lines.push(['task types', agent.taskTypes?.join(', ') ?? 'any']);
  lines.push(
    ['disallowed', agent.disallowedTools.length === 0 ? '-' : agent.disallowedTools.join(', ')],
    ['timeout', `${agent.timeout} s (idle ${agent.idleTimeout} s)`],
    ['max turns', opt(agent.maxTurns)],
    ['max depth', String(agent.maxDepth)],
    ['token budget', opt(agent.tokenBudget)],
    ['permissions', opt(agent.permissionMode)],
  );
  const marked = (field: string, item: string) =>
    off.has(`${field}:${item}`) ? `${item} (not in effect)` : item;
  if (agent.output !== undefined)
    lines.push(['output', marked('output', agent.output === 'handoff' ? 'handoff' : 'JSON schema')]);
  if (agent.exposeAsTool) lines.push(['exposed', 'as a tool']);
  if (agent.isolation !== undefined) lines.push(['isolation', marked('isolation', agent.isolation)]);
  const notes = (agent.notInEffect ?? []).map(
    (n) => `${n.field === 'tools' ? n.item : `${n.field}: ${n.item}`}: ${n.reason}`,
  );
  if (notes.length > 0) lines.push(['not in effect', notes.join(`\n${' '.repeat(16)}`)]);
  const head = lines
    .map(([k, v]) => `${`${k}:`.padEnd(Math.max(14, k.length + 2))}${clean.block(v)}`)
    .join('\n');
  return `${head}\n\n--- prompt ---\n${agent.prompt === '' ? '(empty)' : clean.block(agent.prompt)}\n`;
}

/** Issue lines prefixed by their kind. */
export function issueLines(
  kind: 'error' | 'warning',
  issues: readonly RegistryIssue[],
  clean: TerminalCleaner = SAFE,
): string {
  return issues.map((i) => `${kind}: ${clean.line(formatIssue(i))}\n`).join('');
}

/** `N errors, M warnings`, with singulars. */
export function countLine(errors: number, warnings: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function truncateStart(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
