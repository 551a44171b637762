// The verdict on one file path: the jail, cadre's own records, secrets (by name and by what the file
// begins with), then deny / plan / protected / ask / allow rules, then the mode. Rules see the path as written and where it really leads: a deny or ask rule
// matching either form applies; allow rules must cover both (a symlink cannot borrow an allowance).
import path from 'node:path';
import type { PermissionMode } from '../../../shared/task.js';
import { modeDefault, planDenial, planForbids } from './mode.js';
import {
  displayPath,
  matchPathSpec,
  normalizeRoot,
  rootOf,
  ruleSpecFor,
  type PathContext,
} from './path-match.js';
import { pathToolsFor, ruleVerdict, type ParsedRule, type ParsedRules } from './rules.js';
import { guardedWrite, secretRead } from './path-guards.js';
import { findProtected, findSensitive, specNames, type SensitiveHit } from './sensitive.js';
import { recordHolding, recordReason } from './records.js';
import type { FileContentKind, PolicyDecision, ResolvedPath } from './types.js';

/** What a path decision needs besides the path. */
export interface PathDecideContext extends PathContext {
  mode: PermissionMode;
  rules: ParsedRules;
  /** cadre's own records (absolute, normalised): no file capability may touch them. */
  records?: readonly string[];
  /** The protected list (protected-paths.ts with the config's additions); absent = the built-in list. */
  protect?: readonly string[];
}

/** Facts the capability layer found about one call beyond its path (see PolicyInput). */
export interface PathFacts {
  content?: FileContentKind;
  codeKeysChanged?: readonly string[];
}

export { ruleSpecFor } from './path-match.js';

function isAbsoluteString(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && !value.includes('\0');
}

function outsideReason(rp: ResolvedPath, abs: string, real: string, ctx: PathContext): string {
  const where = rootOf(abs, ctx) === undefined ? abs : real;
  const via = rootOf(abs, ctx) !== undefined ? ' through a symbolic link' : '';
  const roots = ctx.extraRoots.length > 0 ? ` and the extra roots (${ctx.extraRoots.join(', ')})` : '';
  return (
    `"${rp.requested}" resolves to ${where}${via}, outside the project ${ctx.projectDir}${roots}; ` +
    'add its directory to permissions.additionalDirectories in .cadre/config.json to allow it'
  );
}

/** The rules of `list` whose tool applies to the capability. */
function applicable(list: readonly ParsedRule[], tools: readonly string[]): ParsedRule[] {
  return list.length === 0 ? [] : list.filter((r) => tools.includes(r.tool));
}

/** The first rule that matches any of `forms` (a bare rule matches everything). */
function firstMatching(rules: readonly ParsedRule[], forms: readonly string[], ctx: PathContext) {
  for (const r of rules) {
    if (r.specifier === undefined) return r;
    for (const p of forms) if (matchPathSpec(r.specifier, p, ctx)) return r;
  }
  return undefined;
}

/** The verdict on one path for a file capability (`fs.read`, `fs.write`, ...). */
export function decidePath(
  capability: string,
  rp: ResolvedPath,
  ctx: PathDecideContext,
  facts: PathFacts = {},
): PolicyDecision {
  if (typeof rp !== 'object' || rp === null || !isAbsoluteString(rp.absolute) || !isAbsoluteString(rp.real)) {
    return {
      decision: 'deny',
      code: 'invalid_input',
      reason: `${capability}: the path was not resolved to an absolute path`,
    };
  }
  const write = capability === 'fs.write';
  const abs = normalizeRoot(rp.absolute);
  const real = normalizeRoot(rp.real);
  const forms = abs === real ? [abs] : [abs, real];
  // Before the jail: a shell redirection may write outside the project in bypassPermissions mode,
  // never into cadre's records.
  const record = recordHolding(forms, ctx.records);
  if (record !== undefined || facts.content === 'cadre-record')
    return { decision: 'deny', code: 'forbidden_operation', reason: recordReason(rp.requested, record) };
  if (rootOf(abs, ctx) === undefined || rootOf(real, ctx) === undefined) {
    return { decision: 'deny', code: 'path_outside_project', reason: outsideReason(rp, abs, real, ctx) };
  }
  const tools = pathToolsFor(capability);
  const allowRules = applicable(ctx.rules.allow, tools);
  // An allow needs every form covered (a symlink cannot borrow the allowance of its location).
  const allowFor = (p: string) => firstMatching(allowRules, [p], ctx);
  const allowed = allowRules.length > 0 && forms.every((p) => allowFor(p) !== undefined);
  const named = (hits: [string, SensitiveHit][]) =>
    allowed &&
    hits.every(([p, h]) =>
      allowRules.some((r) => r.specifier !== undefined && specNames(r.specifier, p, h, ctx)),
    );
  // Only a verdict that explains itself needs the path as the user would write it.
  const what = () => `${write ? 'writing' : 'reading'} ${displayPath(abs, ctx)}`;

  if (!write && capability !== 'fs.stat') {
    const refused = secretRead(rp, forms, ctx, facts, named);
    if (refused) return refused;
  }
  const deny = firstMatching(applicable(ctx.rules.deny, tools), forms, ctx);
  if (deny) return ruleVerdict('deny', deny, what());
  if (write && planForbids(ctx.mode, 'write')) return planDenial('write', what());
  if (write) {
    const guarded = guardedWrite(forms, ctx, facts, named, what);
    if (guarded) return guarded;
  }
  if (ctx.mode !== 'bypassPermissions') {
    const ask = firstMatching(applicable(ctx.rules.ask, tools), forms, ctx);
    if (ask) return ruleVerdict('ask', ask, what());
  }
  const allow = allowed ? allowFor(abs) : undefined;
  if (allow) return ruleVerdict('allow', allow, what());
  return modeDefault(ctx.mode, write ? 'write' : 'read', what(), write ? [editSuggestion(abs, ctx)] : []);
}

/** `Edit(dir/**)` for a file in a directory, `Edit(file)` at the top. */
function editSuggestion(p: string, ctx: PathContext): string {
  const spec = ruleSpecFor(p, ctx);
  if (spec.startsWith('//')) return `Edit(${path.posix.dirname(spec)}/**)`;
  const slash = spec.indexOf('/');
  return slash === -1 ? `Edit(${spec})` : `Edit(${spec.slice(0, slash)}/**)`;
}

/** A redirection's verdict; `guarded` when it asks because the file is secret or steers cadre or git. */
export interface RedirectVerdict extends PolicyDecision {
  guarded?: boolean;
}

/** The verdict on a file a shell command writes by redirection, judged lexically (no realpath). */
export function decideRedirectTarget(
  target: string,
  ctx: PathDecideContext & { homeDir?: string },
): RedirectVerdict {
  let abs: string;
  if (target === '~' || target.startsWith('~/')) {
    if (ctx.homeDir === undefined)
      return { decision: 'ask', reason: `it writes to ${target}, which cannot be resolved` };
    abs = path.posix.join(ctx.homeDir, target.slice(1));
  } else {
    abs = path.posix.resolve(ctx.projectDir, target);
  }
  const verdict = decidePath('fs.write', { requested: target, absolute: abs, real: abs, exists: false }, ctx);
  if (verdict.code === 'path_outside_project') {
    return ctx.mode === 'bypassPermissions'
      ? {
          decision: 'allow',
          reason: `it writes to ${abs} outside the project: allowed in bypassPermissions mode`,
        }
      : { decision: 'ask', reason: `it writes to ${abs}, outside the project` };
  }
  if (verdict.decision === 'ask' && findProtected(abs, ctx) !== undefined)
    return { ...verdict, guarded: true };
  return verdict;
}

/** The verdict on a file a shell command names as an argument: only secrets and cadre's records matter here. */
export function decideMentionedPath(
  word: string,
  ctx: PathDecideContext & { homeDir?: string },
): PolicyDecision | undefined {
  let abs: string;
  if (word === '~' || word.startsWith('~/')) {
    if (ctx.homeDir === undefined) return undefined;
    abs = path.posix.join(ctx.homeDir, word.slice(1));
  } else {
    abs = path.posix.resolve(ctx.projectDir, word);
  }
  if (recordHolding([abs], ctx.records) !== undefined)
    return {
      decision: 'ask',
      reason: `it names ${word}, one of cadre's own records (transcripts, the audit log)`,
    };
  const hit = findSensitive(abs);
  if (!hit) return undefined;
  const allow = ctx.rules.allow.find(
    (r) => r.tool === 'Read' && r.specifier !== undefined && specNames(r.specifier, abs, hit, ctx),
  );
  if (allow) return undefined;
  return {
    decision: 'ask',
    reason: `it names ${word}, a sensitive file (${hit.label}); allow reading it with an allow rule such as "Read(${ruleSpecFor(abs, ctx)})"`,
  };
}
