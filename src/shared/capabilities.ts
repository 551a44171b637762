// The syscall table: what the host can grant a worker, one capability name per method.
// A worker holds a Comlink proxy of `Capabilities` restricted to its grant; every call returns an
// Envelope (never throws across the port) and passes the host's single policy function.
import type { Envelope } from './errors.js';
import type { AgentEvent } from './events.js';
import type { TaskInput, TaskOutput } from './task.js';
import type { TodoItem } from './tools.js';

/** Read a text file: `offset` is the 1-based first line, `limit` the number of lines. */
interface FsReadRequest {
  path: string;
  offset?: number;
  limit?: number;
}
/** A read file (or part of one). `content` is raw text (no line numbers); the tool numbers it. */
export interface FsReadResult {
  path: string;
  content: string;
  startLine: number;
  totalLines: number;
  truncated: boolean;
  size: number;
  mtimeMs: number;
}
/** Read many files whole, for Grep. Unreadable, binary or oversized files are skipped and listed. */
interface FsReadManyRequest {
  paths: string[];
  maxBytesPerFile?: number;
  /** Return the contents as `packed` (one buffer) instead of one string per file in `files`. */
  packed?: boolean;
  /**
   * Instead of `paths` (pass `paths: []`): read the files this glob finds, as fs.glob would list
   * them in path order, in one pass on the host (walked, judged and read together). `truncated` in
   * the result says the walk stopped at `limit`.
   */
  glob?: Omit<FsGlobRequest, 'sort'>;
}
/**
 * Many files' contents in one buffer: thousands of files cross a thread boundary as a few objects
 * instead of thousands of strings. File `i` is `paths[i]`, its UTF-8 bytes are
 * `bytes[ends[i - 1] ?? 0 .. ends[i]]`, and its modification time `mtimes[i]`.
 */
interface PackedFiles {
  paths: string[];
  ends: number[];
  mtimes: number[];
  bytes: Uint8Array;
}
/** Contents by path, and what was skipped with why. */
export interface FsReadManyResult {
  /** `mtimeMs` comes free with the read: Grep orders matching files by it. */
  files: { path: string; content: string; mtimeMs?: number }[];
  /** With `packed: true`, the files read are here (and `files` is empty). */
  packed?: PackedFiles;
  /** With `glob`: more files matched than its `limit`; only the first `limit` were taken. */
  truncated?: boolean;
  skipped: { path: string; reason: string }[];
  /** With `glob`: what the walk wants said (a .gitignore too big to use whole, a walk out of time). */
  notices?: string[];
  /**
   * Paths not read this time because the call's byte budget (READ_MANY_BUDGET_BYTES) was spent:
   * the tail of the request, in order. Ask for them again.
   */
  deferred?: string[];
}
/** Bytes of file content one fs.readMany call returns at most (one file is always read). */
export const READ_MANY_BUDGET_BYTES = 16 * 1024 * 1024;
/** Find files: a glob relative to `path` (default the project), gitignore-aware. */
export interface FsGlobRequest {
  pattern: string;
  path?: string;
  limit?: number;
  /** `mtime` (default): newest first, one stat per match. `path`: path order, no stats (Grep sorts later). */
  sort?: 'mtime' | 'path';
}
/** Matches newest first, as paths relative to the project directory. */
export interface FsGlobResult {
  root: string;
  files: string[];
  truncated: boolean;
  /** What the walk wants said (a .gitignore too big to use whole, a walk out of time). */
  notices?: string[];
}
/** Stat a path. */
interface FsStatRequest {
  path: string;
}
/** What a path is. `exists: false` is a value, not an error. */
export interface FsStatResult {
  path: string;
  exists: boolean;
  type: 'file' | 'directory' | 'other' | 'missing';
  size: number;
  mtimeMs: number;
}
/** List a directory. */
interface FsListRequest {
  path: string;
  ignore?: string[];
}
/** Directory entries, sorted by name. */
export interface FsListResult {
  path: string;
  entries: { name: string; type: 'file' | 'directory' | 'symlink' | 'other'; size: number }[];
  truncated: boolean;
}
/** Write a whole file atomically. `expectedMtimeMs` refuses the write if the file changed since. */
interface FsWriteRequest {
  path: string;
  content: string;
  expectedMtimeMs?: number;
}
/** What was written. */
export interface FsWriteResult {
  path: string;
  bytes: number;
  created: boolean;
  mtimeMs: number;
}
/** Run `bash -c command` in the project directory. */
export interface ExecRunRequest {
  command: string;
  timeoutMs?: number;
  description?: string;
}
/**
 * A finished command. `sandbox` says which isolation was in force: `bwrap` (bubblewrap), `unshare`
 * (util-linux unshare) or `none` (config `"sandbox": "off"`).
 */
export interface ExecRunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
  sandbox: 'bwrap' | 'unshare' | 'none';
  durationMs: number;
  /** What the sandbox had to do afterwards, for the model and the user (a protected path moved aside). */
  notices?: string[];
}
/** A background run's handle, returned at once by `agents.task` with run_in_background. */
export interface BackgroundHandle {
  agentId: string;
  status: 'running';
  transcriptPath: string;
}
/** Wait for or poll a background run. `timeoutMs` 0 polls. */
interface AgentsOutputRequest {
  agentId: string;
  timeoutMs?: number;
}
/** A background run's state: its output once finished. */
type AgentsOutputResult = { agentId: string; status: 'running' } | TaskOutput;
/** Fetch a URL (text), for WebFetch. */
interface WebFetchRequest {
  url: string;
}
/** A fetched page. */
export interface WebFetchResult {
  url: string;
  status: number;
  contentType: string;
  content: string;
  truncated: boolean;
}
/** Call a tool on an MCP server: `tool` is the name the model was offered (`mcp__server__tool`). */
export interface McpCallRequest {
  tool: string;
  input: Record<string, unknown>;
}
/** An image a tool returned, base64, in a media type the Messages API takes. */
export interface ToolImage {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
}
/** An MCP tool's result as the model will see it: text (within the server's output budget) and images. */
export interface McpCallResult {
  content: string;
  /** The server marked the result as an error. */
  isError: boolean;
  images?: ToolImage[];
  /** The text was cut to the output budget (a note in `content` says so). */
  truncated: boolean;
}

/** The capability table: name -> method. A port carries only the granted names. */
export interface Capabilities {
  'fs.read'(req: FsReadRequest): Promise<Envelope<FsReadResult>>;
  'fs.readMany'(req: FsReadManyRequest): Promise<Envelope<FsReadManyResult>>;
  'fs.glob'(req: FsGlobRequest): Promise<Envelope<FsGlobResult>>;
  'fs.stat'(req: FsStatRequest): Promise<Envelope<FsStatResult>>;
  'fs.list'(req: FsListRequest): Promise<Envelope<FsListResult>>;
  'fs.write'(req: FsWriteRequest): Promise<Envelope<FsWriteResult>>;
  'exec.run'(req: ExecRunRequest): Promise<Envelope<ExecRunResult>>;
  'events.emit'(events: AgentEvent[]): Promise<Envelope<null>>;
  'agents.task'(req: TaskInput): Promise<Envelope<TaskOutput | BackgroundHandle>>;
  'agents.output'(req: AgentsOutputRequest): Promise<Envelope<AgentsOutputResult>>;
  'agents.stop'(req: { agentId: string }): Promise<Envelope<{ agentId: string; stopped: boolean }>>;
  'todos.read'(req: Record<string, never>): Promise<Envelope<TodoItem[]>>;
  'todos.write'(req: { todos: TodoItem[] }): Promise<Envelope<TodoItem[]>>;
  'web.fetch'(req: WebFetchRequest): Promise<Envelope<WebFetchResult>>;
  'mcp.call'(req: McpCallRequest): Promise<Envelope<McpCallResult>>;
}

/** A capability name. */
export type CapabilityName = keyof Capabilities;

/** Every capability name, for guards that must enumerate them. */
export const CAPABILITY_NAMES: readonly CapabilityName[] = [
  'fs.read',
  'fs.readMany',
  'fs.glob',
  'fs.stat',
  'fs.list',
  'fs.write',
  'exec.run',
  'events.emit',
  'agents.task',
  'agents.output',
  'agents.stop',
  'todos.read',
  'todos.write',
  'web.fetch',
  'mcp.call',
];

/**
 * The type of the one capability message that is not a Comlink call: `{ type: EVENTS_NOTE, events }`
 * is an `events.emit` call whose answer nobody waits for, so the host sends none.
 */
export const EVENTS_NOTE = 'cadre.events';

/**
 * The field of any other message to the host that carries the events the worker gathered before
 * it: a capability call and the tool-call event that led to it travel as one message. The host
 * delivers them as an events note first, then handles the message as if the field were not there.
 */
export const EVENTS_FIELD = 'cadreEvents';

/** A worker's view of its grant: only some names are present. */
export type GrantedCapabilities = Partial<Capabilities>;
