// What each part of a command line comes to before the mode is weighed (exec-decide.ts does that):
// whether a deny rule matches it, whether a path guard asks, why it cannot be read statically, and
// why it could not match an allow rule even so.
import { couldMatch, matchBashSpec, matchesLoosely, specCovers, type FormWords } from './bash-match.js';
import type { Collected } from './exec-collect.js';
import { describeRule, ruleOrigin, type ParsedRule } from './rules.js';
import {
  guardRead,
  guardWord,
  guardWrite,
  writeVerdicts,
  type ExecContext,
  type GuardScope,
} from './shell-paths.js';
import { literalWord, type ShellWord } from './shell-words.js';
import type { PolicyDecision } from './types.js';

/** What one part comes to, before the mode and the other parts are weighed. */
export interface PartFacts {
  c: Collected;
  text: string;
  /** The forms rules see (ruleForms). */
  forms: FormWords[];
  deny?: PolicyDecision;
  guard?: PolicyDecision;
  /** Why the part cannot be read statically. */
  unreadable: string[];
  /** Why it cannot match an allow rule although it is readable (a redirection to a file). */
  unmatchable?: string;
}

/** A command's text on one line, cut to 80 characters, for messages. */
export function short(text: string): string {
  const cut = text.length > 200 ? text.slice(0, 200) : text;
  const one = /\s\s|[\t\n\r]/.test(cut) ? cut.replace(/\s+/g, ' ').trim() : cut.trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

/** The rule lists of one decision, split once. */
export interface Judge {
  ctx: ExecContext;
  deny: ParsedRule[];
  ask: ParsedRule[];
  allow: ParsedRule[];
  /** Rules a command that cannot be read statically could match: deny, and ask outside bypass. */
  strict: ParsedRule[];
  /** The path guards' verdicts so far (the same word often recurs in a line). */
  memo: NonNullable<GuardScope['memo']>;
}

/** Splits the rule lists once for a decision. */
export function judgeOf(ctx: ExecContext): Judge {
  const deny = bashRules(ctx.rules.deny);
  const ask = bashRules(ctx.rules.ask);
  const strict = ctx.mode === 'bypassPermissions' ? deny : [...deny, ...ask];
  return { ctx, deny, ask, allow: bashRules(ctx.rules.allow), strict, memo: new Map() };
}

/** The `Bash(...)` rules of a list. */
function bashRules(list: readonly ParsedRule[]): ParsedRule[] {
  return list.filter((r) => r.tool === 'Bash');
}

/** A word list as rules match it: the leading static words are known. */
export function formOf(words: readonly ShellWord[], open: boolean): FormWords {
  let known = words.findIndex((w) => !w.isStatic);
  if (known === -1) known = words.length;
  return { words: words.map((w) => w.value), known, open };
}

/** Forms rules see: each form, and a path-qualified command (`/bin/rm`) by its name too. */
function ruleForms(c: Collected): FormWords[] {
  const out: FormWords[] = [];
  for (const words of c.view.forms) {
    const form = formOf(words, c.open);
    out.push(form);
    const head = form.words[0] ?? '';
    if (form.known > 0 && head.includes('/'))
      out.push({ ...form, words: [head.slice(head.lastIndexOf('/') + 1), ...form.words.slice(1)] });
  }
  return out;
}

/** The first rule that matches any of the forms. */
export function firstMatch(
  rules: readonly ParsedRule[],
  forms: readonly FormWords[],
): ParsedRule | undefined {
  return rules.find((r) => forms.some((f) => matchBashSpec(r.specifier, f)));
}

/** Code a part runs that no allow rule names down to its flag. */
function uncoveredOpaque(c: Collected, j: Judge): string[] {
  if (c.view.opaque.length === 0) return [];
  const inner = c.view.forms[c.view.forms.length - 1] ?? [];
  return c.view.opaque
    .filter((o) => {
      // Form -1: the assignments a command is given, then the command (`NODE_OPTIONS=x node a.js`).
      const words = o.form === -1 ? [...c.view.env, ...inner] : (c.view.forms[o.form] ?? []);
      const form = formOf(words, c.open);
      return !j.allow.some((r) => specCovers(r.specifier, o.words) && matchBashSpec(r.specifier, form));
    })
    .map((o) => `it runs code that cannot be checked (${o.reason})`);
}

function unreadableOf(c: Collected, forms: readonly FormWords[], j: Judge): string[] {
  const out: string[] = [];
  const dynamic =
    c.part.words.find((w) => !w.isStatic && !w.inserted) ??
    c.part.assignments.find((a) => !a.value.isStatic)?.value;
  if (dynamic)
    out.push(
      `${JSON.stringify(short(dynamic.text))} is only known when it runs (${dynamic.why ?? 'it expands'})`,
    );
  if (c.part.assignments.some((a) => a.append)) out.push('it appends to a variable only known when it runs');
  out.push(...c.view.unclear, ...uncoveredOpaque(c, j));
  for (const r of c.part.redirects) {
    if (r.kind === 'heredoc') out.push('it has a here-document');
    else if (r.target && !r.target.isStatic)
      out.push(`it redirects to ${JSON.stringify(short(r.target.text))}, only known when it runs`);
  }
  // Options before a subcommand (`git -C repo push`) may hide a denied or asked form.
  const loose = j.strict.find((r) => forms.some((f) => matchesLoosely(r.specifier, f)));
  if (loose)
    out.push(`it may be "${loose.specifier ?? ''}" with options between its words (rule "${loose.text}")`);
  // Words find or xargs add: a rule could match only if its known words agree.
  if (
    (c.open || c.part.words.some((w) => w.inserted)) &&
    j.strict.some((r) => forms.some((f) => couldMatch(r.specifier, f)))
  )
    out.push('it runs a command with words only known when it runs');
  return out;
}

function guardOf(c: Collected, ctx: ExecContext, scope: GuardScope): Pick<PartFacts, 'deny' | 'guard'> {
  for (const r of c.part.redirects) {
    if (!r.target || r.kind === 'dup' || r.kind === 'heredoc' || r.kind === 'herestring') continue;
    if (r.kind === 'read' || r.kind === 'readwrite') {
      const v = guardRead(r.target, ctx, scope);
      if (v?.decision === 'deny') return { deny: v };
      if (v) return { guard: v };
    }
    if (r.kind === 'write' || r.kind === 'readwrite') {
      const v = guardWrite(r.target, ctx, scope);
      if (v?.decision === 'deny') return { deny: v };
      if (v) return { guard: v };
    }
  }
  for (const file of c.view.writes) {
    const v = guardWrite(literalWord(file), ctx, scope);
    if (v?.decision === 'deny') return { deny: v };
    if (v) return { guard: v };
  }
  // A computed command name may split into words too (`cat${IFS}.env`); a lone assignment reaches no file.
  const [name, ...args] = c.view.forms[0] ?? [];
  const words = [
    ...(name && !name.isStatic ? [name] : []),
    ...args,
    ...(name ? c.part.assignments.map((a) => a.value) : []),
  ];
  for (const w of words) {
    const v = guardWord(w, ctx, scope);
    if (v) return { guard: v };
  }
  return {};
}

/** Why a readable part still cannot match an allow rule: it redirects into or out of a file. */
function unmatchableOf(c: Collected, ctx: ExecContext, scope: GuardScope): string | undefined {
  for (const r of c.part.redirects) {
    if (r.kind === 'dup') continue;
    if (r.kind === 'herestring') return 'it feeds a here-string to the command';
    if (r.target?.isStatic && r.target.value === '/dev/null') continue;
    if (r.kind === 'write' || r.kind === 'readwrite') {
      const pending = r.target
        ? writeVerdicts(r.target, ctx, scope).find((v) => v.decision !== 'allow')
        : undefined;
      return `it writes to ${r.target?.text ?? 'a file'}${pending ? `: ${pending.reason}` : ''}`;
    }
    return `it reads from ${r.target?.text ?? 'a file'}`;
  }
  return undefined;
}

/** What one part comes to: deny, guard, why it cannot be read, why it cannot match an allow rule. */
export function factsOf(c: Collected, j: Judge, dotglob: boolean): PartFacts {
  const { ctx } = j;
  const scope: GuardScope = { cwds: c.cwds, dotglob, memo: j.memo };
  const text = short(c.part.text || c.part.words.map((w) => w.text).join(' '));
  const forms = ruleForms(c);
  const deny = firstMatch(j.deny, forms);
  if (deny) {
    const reason = `"${text}" matches ${describeRule('deny', deny)} (deny rules win over every allow rule and mode)`;
    return {
      c,
      text,
      forms,
      unreadable: [],
      deny: { decision: 'deny', code: 'permission_denied', reason, rule: deny.text, ...ruleOrigin(deny) },
    };
  }
  const guarded = guardOf(c, ctx, scope);
  const unmatchable = unmatchableOf(c, ctx, scope);
  return {
    c,
    text,
    forms,
    ...guarded,
    unreadable: unreadableOf(c, forms, j),
    ...(unmatchable ? { unmatchable } : {}),
  };
}
