// The data the policy function reads and the verdict it returns. Everything here is plain data:
// the capability layer resolves paths (realpath) before asking, so deciding needs no I/O.
import type { ErrorCode } from '../../../shared/errors.js';
import type { PermissionMode } from '../../../shared/task.js';
import type { ResolvedPath } from '../paths.js';

export type { ResolvedPath };

/** A rule as written (`Bash(git status:*)`), optionally with the file it came from. */
export type RuleEntry = string | { rule: string; origin?: string };

/** The three rule lists, user and project files already concatenated. */
export interface PolicyRules {
  allow?: readonly RuleEntry[];
  ask?: readonly RuleEntry[];
  deny?: readonly RuleEntry[];
}

/** One capability call, as the policy sees it. Only the fields of the call's kind are read. */
export interface PolicyInput {
  /**
   * Capability name: `fs.read`, `fs.write`, `exec.run`, `web.fetch`, `mcp.call`, `agents.task`, ...;
   * also `model.request` (a run's model channel) and `web.search` (offering the server-side search).
   */
  capability: string;
  /** The path of an `fs.*` call (for `fs.glob` and `fs.list`, the directory searched). */
  path?: ResolvedPath;
  /** Several paths judged as one call (`fs.readMany`): the strictest verdict wins. */
  paths?: readonly ResolvedPath[];
  /** `fs.glob`: the pattern, checked for `..` and absolute escapes. */
  pattern?: string;
  /** `exec.run`: the shell command. */
  command?: string;
  /** `web.fetch` and `model.request`: the URL. */
  url?: string;
  /** `model.request`: the run's model endpoint (its base URL), set by the host. */
  modelEndpoint?: string;
  /** `mcp.call`: the full tool name, `mcp__server__tool`. */
  tool?: string;
  /** `mcp.call`: the server annotates the tool read-only (set by the host from the server's tool list, never by the worker). */
  readOnly?: boolean;
  /** `agents.task`: the agent type asked for. */
  agentType?: string;
  /** The project directory, real and absolute. */
  projectDir: string;
  /** Other directories agents may use (`permissions.additionalDirectories`), real and absolute. */
  extraRoots?: readonly string[];
  /** The home directory, for `~/` in rules; without it such rules match nothing. */
  homeDir?: string;
  mode: PermissionMode;
  rules?: PolicyRules;
  /** cadre's own records (transcripts dir, audit log, cassettes), absolute: denied to every file capability. */
  records?: readonly string[];
  /** Project-relative paths protected on top of the built-in list (config `sandbox.protect`). */
  protect?: readonly string[];
  /** `fs.read`/`fs.readMany`, after opening: what the file begins with, when that makes it sensitive. */
  content?: FileContentKind;
  /**
   * `fs.write` of a `package.json`: the keys whose change makes npm or a git hook run new code
   * (`scripts`, ...), as the capability layer found by comparing the old and new text; absent when
   * it could not tell (then the write asks).
   */
  codeKeysChanged?: readonly string[];
}

/** What a file's first bytes show: a PEM private key, or one of cadre's own records. */
export type FileContentKind = 'private-key' | 'cadre-record';

/** The three verdicts. */
type Verdict = 'allow' | 'ask' | 'deny';

/** What the policy says about one call, and why, in words a user can act on. */
export interface PolicyDecision {
  decision: Verdict;
  /** Names the mode or rule that decided and what would change the outcome. */
  reason: string;
  /** The rule that decided, as written. */
  rule?: string;
  /** The file that rule came from, when known. */
  origin?: string;
  /** For `deny`: the error code the capability should return. */
  code?: ErrorCode;
  /** For `ask` (and a refused secret): allow rules that would let this call (and similar ones) through. */
  suggestions?: string[];
}
