// The one policy function every capability call passes: pure (no I/O, no clock), it turns a call,
// the permission mode and the rules into allow / ask / deny with a reason a user can act on.
//
// Order: the path jail; cadre's own records (always denied); secrets, by name or by a private key
// the file begins with (denied to reads unless an allow rule names them); deny rules (always win);
// plan mode (no writes, no commands); protected paths and package.json scripts (writes ask); ask rules
// (ignored in bypassPermissions); allow rules; the mode's default. Shell commands are read with the
// bash grammar and judged part by part (see policy/exec-decide.ts); the grammar is loaded once per
// process by `loadShellGrammar()`, which callers await before judging a command (until then, and
// if it cannot load, commands ask; a command judged before it starts the load, the one effect the
// policy ever has).
import { isPermissionMode, PERMISSION_MODES } from '../../shared/permission-modes.js';
import { decideCommand } from './policy/exec-decide.js';
import { decidePath, type PathDecideContext } from './policy/path-decide.js';
import { normalizeRoot } from './policy/path-match.js';
import { protectedPaths } from './policy/protected-paths.js';
import { compileRules } from './policy/rules.js';
import {
  decideBookkeeping,
  decideMcp,
  decideModelRequest,
  decideTask,
  decideWeb,
  decideWebSearch,
  isBookkeeping,
} from './policy/service-decide.js';
import type { PolicyDecision, PolicyInput, ResolvedPath } from './policy/types.js';

export type { PolicyDecision, PolicyInput, PolicyRules, ResolvedPath } from './policy/types.js';
export { validateRules } from './policy/rules.js';
export { loadShellGrammar } from './policy/shell-grammar.js';

const FILE_CAPABILITIES = new Set(['fs.read', 'fs.readMany', 'fs.glob', 'fs.stat', 'fs.list', 'fs.write']);
const RANK = { allow: 0, ask: 1, deny: 2 } as const;

function invalid(reason: string): PolicyDecision {
  return { decision: 'deny', code: 'invalid_input', reason };
}

function isAbsolute(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && !value.includes('\0');
}

/** A glob pattern that climbs out of its directory (`..`) or starts elsewhere (`/x`, `~/x`). */
function globEscapes(pattern: string): boolean {
  return pattern.startsWith('/') || pattern.startsWith('~') || /(^|[/{,])\.\.($|[/},])/.test(pattern);
}

function decidePaths(input: PolicyInput, ctx: PathDecideContext): PolicyDecision {
  const cap = input.capability;
  if (cap === 'fs.glob' && input.pattern !== undefined) {
    if (typeof input.pattern !== 'string') return invalid('fs.glob: the pattern must be a string');
    if (globEscapes(input.pattern)) {
      return {
        decision: 'deny',
        code: 'path_outside_project',
        reason: `the glob pattern "${input.pattern}" climbs out of its directory ("..") or is absolute; pass the directory as the path and keep the pattern relative`,
      };
    }
  }
  const paths: readonly unknown[] = Array.isArray(input.paths)
    ? input.paths
    : input.path !== undefined
      ? [input.path]
      : [];
  if (paths.length === 0) return invalid(`${cap}: no path was given`);
  let worst: PolicyDecision | undefined;
  const facts = {
    ...(input.content === 'private-key' || input.content === 'cadre-record'
      ? { content: input.content }
      : {}),
    ...(Array.isArray(input.codeKeysChanged) ? { codeKeysChanged: input.codeKeysChanged.map(String) } : {}),
  };
  for (const p of paths) {
    const verdict = decidePath(cap, p as ResolvedPath, ctx, facts);
    if (worst === undefined || RANK[verdict.decision] > RANK[worst.decision]) worst = verdict;
    if (verdict.decision === 'deny') break;
  }
  return worst as PolicyDecision;
}

// Parsing rules is most of the cost of a decision, and a run passes the same rules on every call
// (Grep judges thousands of paths). Parses are kept by the rules' text, so a list changed in place
// is parsed again: still pure, same input, same verdict.
const parsedRules = new Map<string, ReturnType<typeof compileRules>>();
function compiled(rules: PolicyInput['rules']): ReturnType<typeof compileRules> {
  if (rules === undefined || rules === null || typeof rules !== 'object') return compileRules(rules);
  const key = JSON.stringify([rules.allow, rules.ask, rules.deny]);
  let parsed = parsedRules.get(key);
  if (!parsed) {
    parsed = compileRules(rules);
    if (parsedRules.size >= 64) parsedRules.clear();
    parsedRules.set(key, parsed);
  }
  return parsed;
}

type DecideContext = PathDecideContext & { homeDir?: string };

// The protected list with the config's additions, kept by the additions' text like the rules.
const protectCache = new Map<string, string[]>();
function protectedList(extra: unknown): string[] {
  const list = Array.isArray(extra) ? extra.filter((e): e is string => typeof e === 'string') : [];
  const key = list.join('\0');
  let merged = protectCache.get(key);
  if (!merged) {
    merged = protectedPaths(list);
    if (protectCache.size >= 64) protectCache.clear();
    protectCache.set(key, merged);
  }
  return merged;
}

/** Checks what every call carries and builds the context it is judged in, once per call. */
function contextOf(input: PolicyInput): { ctx: DecideContext } | { invalid: PolicyDecision } {
  if (typeof input !== 'object' || input === null)
    return { invalid: invalid('the policy was asked about nothing') };
  if (typeof input.capability !== 'string') return { invalid: invalid('the capability name is missing') };
  const mode = input.mode;
  if (!isPermissionMode(mode))
    return {
      invalid: invalid(`unknown permission mode "${String(mode)}" (use ${PERMISSION_MODES.join(', ')})`),
    };
  if (!isAbsolute(input.projectDir))
    return { invalid: invalid('the project directory is not an absolute path') };
  const extraRoots = Array.isArray(input.extraRoots)
    ? input.extraRoots.filter(isAbsolute).map(normalizeRoot)
    : [];
  const rules = compiled(input.rules);
  // Records that are not absolute strings cannot be checked: refuse rather than skip them.
  if (input.records !== undefined && (!Array.isArray(input.records) || !input.records.every(isAbsolute)))
    return { invalid: invalid("cadre's record locations are not absolute paths") };
  return {
    ctx: {
      projectDir: normalizeRoot(input.projectDir),
      extraRoots,
      mode,
      rules,
      records: (input.records ?? []).map(normalizeRoot),
      protect: protectedList(input.protect),
      ...(isAbsolute(input.homeDir) ? { homeDir: normalizeRoot(input.homeDir) } : {}),
    },
  };
}

function decideUnsafe(input: PolicyInput): PolicyDecision {
  const checked = contextOf(input);
  if ('invalid' in checked) return checked.invalid;
  const { ctx } = checked;
  const cap = input.capability;
  if (FILE_CAPABILITIES.has(cap)) return decidePaths(input, ctx);
  switch (cap) {
    case 'exec.run':
      if (typeof input.command !== 'string' || input.command.trim() === '')
        return invalid('exec.run: the command is empty');
      return decideCommand(input.command, ctx);
    case 'web.fetch':
      return decideWeb(input.url, ctx);
    case 'web.search':
      return decideWebSearch(ctx);
    case 'mcp.call':
      return decideMcp(input.tool, ctx, input.readOnly === true);
    case 'agents.task':
      return decideTask(input.agentType, ctx);
    case 'model.request':
      return decideModelRequest(input.url, input.modelEndpoint);
  }
  if (isBookkeeping(cap)) return decideBookkeeping(cap, ctx);
  return {
    decision: 'deny',
    code: 'not_granted',
    reason: `"${cap.slice(0, 60)}" is not a capability cadre knows`,
  };
}

/**
 * Decides one capability call. Pure and total: it never throws, and anything malformed is denied
 * with a reason. The caller resolves paths (realpath) first and passes them as `ResolvedPath`s.
 */
export function decide(input: PolicyInput): PolicyDecision {
  try {
    return decideUnsafe(input);
  } catch (error) {
    return internalDenial(error);
  }
}

function internalDenial(error: unknown): PolicyDecision {
  return {
    decision: 'deny',
    code: 'internal',
    reason: `the policy could not judge this call: ${error instanceof Error ? error.message : String(error)}`,
  };
}

/**
 * Decides a file capability for each of `input.paths` on its own, as `decide` would for each path
 * alone (Grep's batch reads skip the denied ones and read the rest). The context is checked once.
 * Pure and total like `decide`: one verdict per path, in order.
 */
export function decideEach(
  input: Omit<PolicyInput, 'path' | 'paths'> & { paths: readonly unknown[] },
): PolicyDecision[] {
  let checked: ReturnType<typeof contextOf>;
  try {
    checked = contextOf(input as PolicyInput);
  } catch (error) {
    return input.paths.map(() => internalDenial(error));
  }
  if ('invalid' in checked) return input.paths.map(() => checked.invalid);
  if (!FILE_CAPABILITIES.has(input.capability))
    return input.paths.map(() => invalid(`${String(input.capability)} is not a file capability`));
  const { ctx } = checked;
  const { capability, pattern, content, codeKeysChanged } = input;
  return input.paths.map((p) => {
    try {
      // decidePaths reads only these fields; the context is built once above.
      return decidePaths({ capability, pattern, content, codeKeysChanged, path: p } as PolicyInput, ctx);
    } catch (error) {
      return internalDenial(error);
    }
  });
}
