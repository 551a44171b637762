// What cadre sees of an MCP connection: a session that lists tools, calls them and closes, over a
// target (a server process cadre started, or a remote URL). sdk-adapter.ts implements it with the
// SDK; nothing else in cadre touches the SDK or its types.
import type { ServerProcess } from './server-process.js';

/** A tool as a server lists it, with what cadre needs. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server annotated the tool `readOnlyHint: true`. */
  readOnly: boolean;
}

/** A tool call's result as the server sent it. */
export interface McpRawResult {
  content: readonly Record<string, unknown>[];
  structuredContent?: unknown;
  isError: boolean;
}

/** One connected server. */
export interface McpSession {
  readonly serverName: string | undefined;
  readonly serverVersion: string | undefined;
  listTools(options: { timeoutMs: number; signal?: AbortSignal }): Promise<McpToolInfo[]>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<McpRawResult>;
  close(): Promise<void>;
}

/** What a session talks to. */
export type SessionTarget =
  | { type: 'process'; process: ServerProcess }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** Callbacks of a session. */
export interface SessionHooks {
  /** The connection ended without `close()` (the process exited, the stream broke). */
  onClose(): void;
  /** The server said its tool list changed. */
  onToolsChanged(): void;
}
