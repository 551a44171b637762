// The MCP servers a configuration provides, for everything that asks whether an `mcp__server__*`
// tool can be in effect (the registry's load-time check, `agents show`): every server of the merged
// `mcpServers` (user config, `.mcp.json`, project config), usable or not; an agent's own inline
// servers are added by the caller.
import type { CadreConfig } from './config.js';

/** The names of the MCP servers `config` configures. */
export function configuredMcpServers(config: CadreConfig): ReadonlySet<string> {
  return new Set(Object.keys(config.mcpServers));
}
