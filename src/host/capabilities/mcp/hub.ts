// The host's MCP hub: one client per distinct server configuration (keyed by its hash), shared by
// every agent of the process, whichever name or agent file configured it. Connections start on
// first use; `close()` ends every server and its process tree.
import path from 'node:path';
import { McpConnection } from './connection.js';
import { sandboxedServerCommand } from './sandbox-command.js';
import type { ServerSpec } from './server-spec.js';

/** What the hub needs to run servers. */
export interface HubOptions {
  /** The project directory: stdio servers' default working directory, read-only in their sandbox. */
  projectDir: string;
  /** The user's home: HOME of servers configured with `sandbox: false`. */
  home: string;
  /** The configured `sandbox.mode`. */
  sandboxMode: 'auto' | 'required' | 'off';
  /** Where each server gets its own writable state directory (default `~/.cadre/mcp`). */
  stateRoot?: string;
  /** The version cadre reports to servers. */
  clientVersion?: string;
}

/** One process's MCP servers. */
export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  private closed = false;

  constructor(readonly options: HubOptions) {}

  /** The connection for `spec`'s configuration, created (not started) on first request. */
  connection(spec: ServerSpec): McpConnection {
    let connection = this.connections.get(spec.key);
    if (connection) return connection;
    const stateRoot = this.options.stateRoot ?? path.join(this.options.home, '.cadre', 'mcp');
    connection = new McpConnection(spec, {
      clientVersion: this.options.clientVersion ?? '0.1.0',
      command: (target, s) =>
        sandboxedServerCommand(target, {
          mode: this.options.sandboxMode,
          projectDir: this.options.projectDir,
          stateDir: path.join(stateRoot, s.key),
          home: this.options.home,
        }),
    });
    if (this.closed) void connection.close();
    this.connections.set(spec.key, connection);
    return connection;
  }

  /** Every connection made so far. */
  all(): McpConnection[] {
    return [...this.connections.values()];
  }

  /** Ends every server (and what it started); later connections are closed at once. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.all().map((c) => c.close()));
  }
}
