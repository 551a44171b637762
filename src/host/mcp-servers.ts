// The MCP servers a configuration provides, for everything that asks whether an `mcp__server__*`
// tool can be in effect (the registry's load-time check, `agents show`). cadre does not start MCP
// servers yet, so no server is configured and every MCP tool is reported as not in effect; the MCP
// support replaces this one function.
import type { CadreConfig } from './config.js';

/** The names of the MCP servers `config` configures. */
export function configuredMcpServers(_config: CadreConfig): ReadonlySet<string> {
  return new Set();
}
