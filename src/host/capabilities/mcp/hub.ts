// The host's MCP hub: one client per distinct server configuration (keyed by its hash), shared by
// every agent of the process, whichever name or agent file configured it. Connections start on
// first use; a server defined inline in an agent file lives while that agent's runs hold it;
// `close()` ends every server and its process tree.
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
  /** How long an inline server outlives its last run, so back-to-back runs share it (default 3 s). */
  inlineLingerMs?: number;
}

const INLINE_LINGER_MS = 3000;

/** One process's MCP servers. */
export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  /** Keys of configured servers: they live until the hub closes. */
  private readonly pinned = new Set<string>();
  /** Runs holding each inline server, and the timer that ends one no run holds. */
  private readonly holds = new Map<string, { count: number; timer?: NodeJS.Timeout }>();
  private closed = false;

  constructor(readonly options: HubOptions) {}

  /**
   * The connection for `spec`'s configuration, created (not started) on first request. A server
   * configured in a file lives until the hub closes; one defined inline in an agent lives while runs
   * hold it (see `hold`).
   */
  connection(spec: ServerSpec): McpConnection {
    if (spec.agent === undefined) this.pinned.add(spec.key);
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

  /**
   * Holds `spec`'s server for one run. Releasing the last hold of an inline server ends it after a
   * short linger (unless a configured server has the same configuration); release is idempotent.
   */
  hold(spec: ServerSpec): () => void {
    const held = this.holds.get(spec.key) ?? { count: 0 };
    clearTimeout(held.timer);
    held.count++;
    this.holds.set(spec.key, held);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.count > 0) return;
      held.timer = setTimeout(() => {
        if (held.count > 0 || this.holds.get(spec.key) !== held) return;
        this.holds.delete(spec.key);
        if (this.pinned.has(spec.key)) return;
        const connection = this.connections.get(spec.key);
        this.connections.delete(spec.key);
        void connection?.close();
      }, this.options.inlineLingerMs ?? INLINE_LINGER_MS);
      held.timer.unref();
    };
  }

  /** Every connection made so far. */
  all(): McpConnection[] {
    return [...this.connections.values()];
  }

  /** Ends every server (and what it started); later connections are closed at once. */
  async close(): Promise<void> {
    this.closed = true;
    for (const held of this.holds.values()) clearTimeout(held.timer);
    await Promise.all(this.all().map((c) => c.close()));
  }
}
