// What the host hands a worker to start one run, what the worker hands back, and the control
// messages the host may post during a run. The host decides everything here; the worker obeys.
import type { ConversationMessage } from './events.js';
import type { PermissionMode, TaskStatus, Usage } from './task.js';
import type { WireError } from './errors.js';

/** Which model client a run uses and how to reach it. Secrets travel here, never via env. */
export interface ModelConfig {
  provider: 'anthropic' | 'offline' | 'replay';
  /** Resolved model id (aliases already mapped by the host). */
  model: string;
  baseURL?: string;
  apiKey?: string;
  authToken?: string;
  maxTokens: number;
  /** Abort a stream that sends no bytes for this long (the SDK's own timeout stops at the headers). */
  streamIdleTimeoutMs: number;
  maxRetries: number;
  /** For `replay`: the cassette's content, read by the host. */
  cassette?: string;
  /** Record every exchange as `model-exchange` notices for the host to write a cassette. */
  record?: boolean;
}

/** A tool offered to the model that is not a built-in (an exposed agent, an MCP tool). */
export interface ExtraToolDef {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  kind: 'agent' | 'mcp';
  /** For kind `agent`: the agent type the call spawns. */
  agentType?: string;
  /** For kind `mcp`: the server annotates the tool read-only (it may run in parallel with other reads). */
  readOnly?: boolean;
}

/**
 * Anthropic's server-side web search, as a run's model requests offer it (the Messages API's
 * `web_search` tool parameters). The host sets it only where the endpoint offers the tool and the
 * policy allows it; the model's provider runs the searches.
 */
export interface WebSearchSpec {
  allowed_domains?: string[];
  blocked_domains?: string[];
  max_uses?: number;
}

/** Caps on what a model controls inside the worker. */
export interface RunCaps {
  /** Largest tool_result text returned to the model (chars). */
  maxToolResultChars: number;
  /** Conversation size beyond which the run fails rather than grow without bound (chars). */
  maxConversationChars: number;
  /** Grep: most files it reads, and most matches it keeps. */
  maxGrepFiles: number;
  maxGrepMatches: number;
  /** Tool calls run per model message; the calls past it are answered "limit reached, do not retry". */
  maxToolCallsPerMessage: number;
  /** Subagent launches (Task, agents exposed as tools) run per model message. */
  maxTasksPerMessage: number;
  /** Most characters of text (and thinking) one model reply may stream; past it the run fails. */
  maxReplyChars: number;
  /** Most characters of tool-call input (JSON) one model reply may stream. */
  maxToolInputChars: number;
}

/** Default caps. */
export const DEFAULT_CAPS: RunCaps = {
  maxToolResultChars: 100_000,
  maxConversationChars: 4_000_000,
  maxGrepFiles: 50_000,
  maxGrepMatches: 10_000,
  maxToolCallsPerMessage: 64,
  maxTasksPerMessage: 16,
  // A reply of 128k output tokens is about 0.5 M characters; these leave room for that four times
  // over and stay far below what a worker can hold, copy and clone (a 250 MB reply once aborted
  // the host in a worker's JSON.stringify).
  maxReplyChars: 2_000_000,
  maxToolInputChars: 2_000_000,
};

/** The reply caps a model stream is held to. */
export type ReplyCaps = Pick<RunCaps, 'maxReplyChars' | 'maxToolInputChars'>;

/**
 * The longest line (bytes without a newline) the host passes on from a model's response stream.
 * An SSE event is one line and the SDK joins a line's chunks by copying them all, so one endless
 * line would cost the worker time and memory quadratic in its length. Four bytes per character
 * covers any UTF-8 text a reply may carry in a single event.
 */
export function maxModelLineBytes(caps: ReplyCaps): number {
  return 4 * Math.max(caps.maxReplyChars, caps.maxToolInputChars) + 65_536;
}

/** Everything a worker needs for one run. */
export interface WorkerRunSpec {
  agentId: string;
  parentId?: string;
  depth: number;
  agentType: string;
  description: string;
  /** The rendered system prompt. */
  system: string;
  /** The new user message (the task, or the resume prompt). */
  prompt: string;
  /** Earlier conversation, when resuming. */
  history: ConversationMessage[];
  /** Built-in and mcp tool names offered to the model (already filtered by the host). */
  tools: string[];
  extraTools: ExtraToolDef[];
  /** Agent types Task may spawn; absent = any. Enforced again by the host. */
  taskTypes?: string[];
  /** Set when `tools` holds WebSearch: how the server-side search is offered. */
  webSearch?: WebSearchSpec;
  model: ModelConfig;
  maxTurns: number;
  permissionMode: PermissionMode;
  /** The project directory, for messages and relative paths shown to the model. */
  cwd: string;
  caps: RunCaps;
}

/** What a worker returns when its loop ends by itself (kills are decided by the host). */
export interface WorkerRunResult {
  status: Extract<TaskStatus, 'completed' | 'failed' | 'max_turns'>;
  result: string;
  error?: WireError;
  usage: Usage;
  turns: number;
  toolCalls: number;
}

/** Messages the host posts on a run's control port. */
export type ControlMessage = { type: 'grace'; message: string } | { type: 'cancel' };
