// The path guards of shell commands: the files a command names in its arguments, reads or writes
// by redirection, checked against cadre's own records, the sensitive-file list, the protected paths
// and the deny rules, in every mode. A command that names a record asks whatever the rules say; a
// redirection into one is denied (path-decide.ts, as for the file tools). Words are checked as the patterns they may expand to (globs, braces, variables
// given a value in the same command, the literal fragments of anything else), resolved from each
// directory the command may be in by then (`cd`). What cannot be known before it runs is left to
// the sandbox: these guards catch what static reading can.
import { matchPathSpec } from './path-match.js';
import { decideRedirectTarget, ruleSpecFor, type RedirectVerdict } from './path-decide.js';
import { recordHolding } from './records.js';
import type { ParsedRule } from './rules.js';
import { findSensitive, specNames } from './sensitive.js';
import {
  candidates,
  commandProtected,
  namesGuarded,
  type ExecContext,
  type GuardScope,
} from './shell-path-candidates.js';
import type { ShellWord } from './shell-words.js';
import type { PolicyDecision } from './types.js';

export { type ExecContext, type GuardScope };

function allowNames(
  rules: readonly ParsedRule[],
  tools: readonly string[],
  p: string,
  ctx: ExecContext,
): boolean {
  const hit = findSensitive(p) ?? { label: '', keys: [p.split('/').length - 1] };
  return rules.some(
    (r) => tools.includes(r.tool) && r.specifier !== undefined && specNames(r.specifier, p, hit, ctx),
  );
}

function denyRule(p: string, tools: readonly string[], ctx: ExecContext): ParsedRule | undefined {
  return ctx.rules.deny.find(
    (r) => tools.includes(r.tool) && (r.specifier === undefined || matchPathSpec(r.specifier, p, ctx)),
  );
}

/** Asks for a command that names one of cadre's records: no rule or mode lets one through unasked. */
function recordProblem(p: string, word: string, ctx: ExecContext): PolicyDecision | undefined {
  if (recordHolding([p], ctx.records) === undefined) return undefined;
  return {
    decision: 'ask',
    reason: `it names ${word}, which may be ${p}, one of cadre's own records (transcripts, the audit log, cassettes)`,
  };
}

/** Why naming path `p` in a command asks, if it does. */
function namedPathProblem(p: string, word: string, ctx: ExecContext): PolicyDecision | undefined {
  const record = recordProblem(p, word, ctx);
  if (record) return record;
  const hit = findSensitive(p);
  if (hit && !allowNames(ctx.rules.allow, ['Read'], p, ctx)) {
    return {
      decision: 'ask',
      reason: `it names ${word}, which may be ${p}, a sensitive file (${hit.label}); allow reading it with an allow rule such as "Read(${ruleSpecFor(p, ctx)})"`,
      suggestions: [`Read(${ruleSpecFor(p, ctx)})`],
    };
  }
  const entry = commandProtected(p, ctx);
  if (entry && !allowNames(ctx.rules.allow, ['Edit', 'Write'], p, ctx)) {
    return {
      decision: 'ask',
      reason: `it names ${word}, which may be in ${entry}, a protected path (what is written there runs code later); allow it with an allow rule such as "Edit(${ruleSpecFor(p, ctx)})"`,
    };
  }
  const deny = denyRule(p, ['Read', 'Edit', 'Write'], ctx);
  if (deny)
    return {
      decision: 'ask',
      reason: `it names ${word}, which may be ${p}: deny rule "${deny.text}" covers it`,
    };
  return undefined;
}

/** The values inside a word that may be paths: the word, after `--opt=`, `KEY=` or `-o`, after `@`. */
function pathLike(pattern: string): string[] {
  const out = [pattern];
  const eq = pattern.indexOf('=');
  const value = eq === -1 ? pattern : pattern.slice(eq + 1);
  if (eq !== -1) out.push(value);
  // A short option with its value attached: `-o.git/hooks/x`, `-f.env`.
  if (eq === -1 && /^-[A-Za-z]./.test(pattern)) out.push(pattern.slice(2));
  // `@file` is how curl and friends read a file into an argument.
  if (value.startsWith('@')) out.push(value.slice(1));
  return out;
}

/** The first candidate of `pattern` that `check` flags, where the glob (if any) names it. */
function firstFlagged<T extends PolicyDecision>(
  pattern: string,
  ctx: ExecContext,
  scope: GuardScope,
  check: (p: string) => T | undefined,
): { found: T } | { tooMany: true } | undefined {
  const found = candidates(pattern, ctx, scope);
  if (found === undefined) return { tooMany: true };
  for (const c of found) {
    const hit = check(c.path);
    if (hit === undefined) continue;
    if (c.glob === undefined) return { found: hit };
    // A rule suggested for one name a glob may match would not cover the glob.
    if (namesGuarded(c, scope.dotglob, (p) => check(p) !== undefined)) {
      const { suggestions: _suggestions, ...rest } = hit;
      return { found: rest as T };
    }
  }
  return undefined;
}

/** The guard verdict on a word a command is given (argument or assignment value), if it asks. */
export function guardWord(word: ShellWord, ctx: ExecContext, scope: GuardScope): PolicyDecision | undefined {
  if (!scope.memo) return guardPatterns(word, ctx, scope);
  let byWord = scope.memo.get(scope.cwds);
  if (!byWord) {
    byWord = new Map();
    scope.memo.set(scope.cwds, byWord);
  }
  // The verdict depends on the patterns only (the word's text just names it in the message).
  const key = word.patterns.length === 1 ? (word.patterns[0] as string) : word.patterns.join('\0');
  const known = byWord.get(key);
  if (known !== undefined) return known ?? undefined;
  const verdict = guardPatterns(word, ctx, scope);
  byWord.set(key, verdict ?? null);
  return verdict;
}

function guardPatterns(word: ShellWord, ctx: ExecContext, scope: GuardScope): PolicyDecision | undefined {
  for (const pattern of word.patterns.flatMap(pathLike)) {
    if (pattern === '' || pattern.startsWith('-')) continue;
    const hit = firstFlagged(pattern, ctx, scope, (p) => namedPathProblem(p, word.text, ctx));
    if (hit && 'tooMany' in hit)
      return { decision: 'ask', reason: `its argument ${word.text} may match too many files to check` };
    if (hit) return hit.found;
  }
  return undefined;
}

/** The verdict on a file a command reads by redirection: deny rules deny, records and secrets ask. */
export function guardRead(word: ShellWord, ctx: ExecContext, scope: GuardScope): PolicyDecision | undefined {
  const check = (p: string): PolicyDecision | undefined => {
    const deny = denyRule(p, ['Read'], ctx);
    if (deny)
      return word.isStatic
        ? {
            decision: 'deny',
            code: 'permission_denied',
            reason: `it reads ${p}, which deny rule "${deny.text}" covers (deny rules win in every mode)`,
            rule: deny.text,
          }
        : {
            decision: 'ask',
            reason: `it reads from ${word.text}, which may be ${p}: deny rule "${deny.text}" covers it`,
          };
    const record = recordProblem(p, word.text, ctx);
    if (record) return record;
    const hit = findSensitive(p);
    if (hit && !allowNames(ctx.rules.allow, ['Read'], p, ctx))
      return {
        decision: 'ask',
        reason: `it reads ${word.text}, which may be ${p}, a sensitive file (${hit.label}); allow it with an allow rule such as "Read(${ruleSpecFor(p, ctx)})"`,
      };
    return undefined;
  };
  for (const pattern of word.patterns) {
    const hit = firstFlagged(pattern, ctx, scope, check);
    if (hit && 'tooMany' in hit)
      return {
        decision: 'ask',
        reason: `it reads from ${word.text}, which may match too many files to check`,
      };
    if (hit) return hit.found;
  }
  return undefined;
}

/** The verdict on a file a command writes by redirection: the first deny or guarded ask, if any. */
export function guardWrite(
  word: ShellWord,
  ctx: ExecContext,
  scope: GuardScope,
): RedirectVerdict | undefined {
  const check = (p: string): RedirectVerdict | undefined => {
    const verdict = decideRedirectTarget(p, ctx);
    if (verdict.decision === 'deny' || verdict.guarded) return verdict;
    const entry = commandProtected(p, ctx);
    if (entry && !allowNames(ctx.rules.allow, ['Edit', 'Write'], p, ctx))
      return {
        decision: 'ask',
        reason: `it writes to ${p}, in ${entry}, a protected path (what is written there runs code later)`,
        guarded: true,
      };
    return undefined;
  };
  for (const pattern of word.patterns) {
    const hit = firstFlagged(pattern, ctx, scope, check);
    if (hit && 'tooMany' in hit)
      return {
        decision: 'ask',
        reason: `it writes to ${word.text}, which may match too many files to check`,
        guarded: true,
      };
    if (hit) return hit.found;
  }
  return undefined;
}

/** What writing `word` needs when no guard stops it: the mode's verdict on each path it may be. */
export function writeVerdicts(word: ShellWord, ctx: ExecContext, scope: GuardScope): RedirectVerdict[] {
  const out = word.patterns.flatMap((pattern) =>
    (candidates(pattern, ctx, scope) ?? []).map((c) => decideRedirectTarget(c.path, ctx)),
  );
  if (!word.complete || word.patterns.length === 0)
    out.push(
      ctx.mode === 'bypassPermissions'
        ? { decision: 'allow', reason: 'allowed in bypassPermissions mode' }
        : { decision: 'ask', reason: `it writes to a file named only when it runs (${word.text})` },
    );
  return out;
}
