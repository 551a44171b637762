// Renders agents for people: the `agents list` table, the `agents show` page, and issue lines.
// Names, descriptions, prompts and issue messages come from agent files: they go through the
// terminal cleaner (made inert unless --raw).
import type { LoadedAgent, RegistryIssue } from '../../../shared/agent-definition.js';
import { terminalCleaner, type TerminalCleaner } from '../../terminal-text.js';
import { ToolName } from '../../../shared/tools.js';
import { formatIssue } from '../../registry/format-issue.js';

/** The fields `agents list --json` prints per agent: everything but the (possibly huge) prompt. */
export function agentSummary(agent: LoadedAgent): Omit<LoadedAgent, 'prompt'> {
  const { prompt: _prompt, ...rest } = agent;
  return rest;
}

/** A compact description of a tool set: `all`, or the names. */
export function toolsLabel(agent: Pick<LoadedAgent, 'tools' | 'taskTypes'>): string {
  const all =
    ToolName.options.every((t) => agent.tools.includes(t)) && agent.tools.length === ToolName.options.length;
  if (all && agent.taskTypes === undefined) return 'all';
  return agent.tools
    .map((t) => (t === 'Task' && agent.taskTypes ? `Task(${agent.taskTypes.join(', ')})` : t))
    .join(', ');
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
    clean.line(a.model),
    truncate(toolsLabel(a), 40),
    clean.line(oneLine(a.description)),
  ]);
  const header = ['NAME', 'SOURCE', 'MODEL', 'TOOLS', 'DESCRIPTION'];
  const widths = header
    .slice(0, 4)
    .map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fixed = widths.reduce((sum, w) => sum + w + 2, 0);
  const descWidth = Math.max(20, width - fixed);
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 4 ? cell.padEnd(widths[i] ?? 0) : truncate(cell, descWidth)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The `agents show` page: the resolved definition, its provenance, then the prompt. */
export function agentPage(agent: LoadedAgent, clean: TerminalCleaner = SAFE): string {
  const opt = (value: unknown) => (value === undefined ? '-' : String(value));
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
    ['tools', agent.tools.join(', ')],
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
  if (agent.output !== undefined)
    lines.push(['output', agent.output === 'handoff' ? 'handoff' : 'JSON schema']);
  if (agent.exposeAsTool) lines.push(['exposed', 'as a tool']);
  if (agent.isolation !== undefined) lines.push(['isolation', agent.isolation]);
  const head = lines.map(([k, v]) => `${`${k}:`.padEnd(14)}${clean.block(v)}`).join('\n');
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

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
