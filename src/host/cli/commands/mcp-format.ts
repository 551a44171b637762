// Renders MCP server listings for people: one block per server (status, where it is configured,
// what it runs, which agents see it) and one line per tool under the name the model sees. What a
// configuration or a server chose (commands, paths, errors, tool names and descriptions) goes
// through the terminal cleaner (made inert unless --raw).
import type { McpServerStatus } from '../../capabilities/mcp/listing.js';
import { trustCommand } from '../../capabilities/mcp/trust-gate.js';
import { terminalCleaner, type TerminalCleaner } from '../../terminal-text.js';

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** The `cadre mcp list` text. */
export function mcpListText(
  servers: readonly McpServerStatus[],
  projectDir: string,
  clean: TerminalCleaner = terminalCleaner(false),
): string {
  const c = clean.line;
  if (servers.length === 0)
    return 'No MCP servers are configured (add them to .mcp.json, or to mcpServers in .cadre/config.json or ~/.cadre/config.json).\n';
  const lines: string[] = [];
  for (const s of servers) {
    const sandbox = s.sandbox ? `, sandbox ${s.sandbox}` : '';
    lines.push(`${c(s.id)}  ${s.status}  (${s.scope}${s.type ? `, ${s.type}` : ''}${sandbox})`);
    lines.push(`  configured in: ${c(s.origin)}`);
    if (s.runs) lines.push(`  runs:          ${c(s.runs)}`);
    if (s.error) lines.push(`  error:         ${c(s.error)}`);
    if (s.status === 'untrusted')
      lines.push(`  not started until trusted; to trust it run: ${c(trustCommand(projectDir, [s.id]))}`);
    lines.push(`  agents:        ${s.agents.length > 0 ? c(s.agents.join(', ')) : '-'}`);
    if (s.tools.length > 0) {
      lines.push(`  tools (${s.tools.length}):`);
      const width = Math.min(60, Math.max(...s.tools.map((t) => t.name.length)));
      for (const t of s.tools) {
        const flags = t.readOnly ? 'read-only' : '';
        const who = t.agents.length > 0 ? c(t.agents.join(', ')) : 'no agent';
        lines.push(
          `    ${pad(t.name, width)}  ${pad(flags, 9)}  ${who}${t.description ? ` — ${c(t.description)}` : ''}`,
        );
      }
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}
