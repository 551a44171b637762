// The verdict on a shell command. The line is read with the bash grammar into the simple commands
// bash will run (exec-collect.ts), and then, in this order:
// 1. deny rules win in every mode: a part whose words match a `Bash(...)` deny rule, a redirection
//    into a path a Write/Edit deny rule covers, or out of one a Read deny rule covers;
// 2. plan mode denies every command;
// 3. the path guards ask in every mode: a secret, a protected path or a denied path named in an
//    argument, a glob or a redirection;
// 4. where deny rules (or, outside bypassPermissions, ask rules) name commands, any part that cannot
//    be read statically asks in every mode: it could be the denied command;
// 5. bypassPermissions allows the rest (the sandbox is the boundary);
// 6. otherwise each part must match an allow rule, which needs it statically known: literal words,
//    no expansion, here-document or redirection other than to /dev/null, and any code it runs from
//    its flags named by the rule. Anything else asks.
import { couldMatch, matchBashSpec, specCovers, suggestBashRule, type FormWords } from './bash-match.js';
import { collectCommand, type Collected } from './exec-collect.js';
import { modeDefault, planDenial } from './mode.js';
import { describeRule, ruleOrigin, type ParsedRule } from './rules.js';
import {
  guardRead,
  guardWord,
  guardWrite,
  writeVerdicts,
  type ExecContext,
  type GuardScope,
} from './shell-paths.js';
import type { ShellWord } from './shell-words.js';
import type { PolicyDecision } from './types.js';

export type { ExecContext };

/** What one part comes to, before the mode and the other parts are weighed. */
interface PartFacts {
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

/** One part's verdict, with its text for messages. */
interface PartVerdict extends PolicyDecision {
  text: string;
}

function short(text: string): string {
  const cut = text.length > 200 ? text.slice(0, 200) : text;
  const one = /\s\s|[\t\n\r]/.test(cut) ? cut.replace(/\s+/g, ' ').trim() : cut.trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

/** The rule lists of one decision, split once. */
interface Judge {
  ctx: ExecContext;
  deny: ParsedRule[];
  ask: ParsedRule[];
  allow: ParsedRule[];
  /** Rules a command that cannot be read statically could match: deny, and ask outside bypass. */
  strict: ParsedRule[];
  /** The path guards' verdicts so far (the same word often recurs in a line). */
  memo: Map<string, PolicyDecision | null>;
}

function judgeOf(ctx: ExecContext): Judge {
  const deny = bashRules(ctx.rules.deny);
  const ask = bashRules(ctx.rules.ask);
  const strict = ctx.mode === 'bypassPermissions' ? deny : [...deny, ...ask];
  return { ctx, deny, ask, allow: bashRules(ctx.rules.allow), strict, memo: new Map() };
}

function bashRules(list: readonly ParsedRule[]): ParsedRule[] {
  return list.filter((r) => r.tool === 'Bash');
}

function formOf(words: readonly ShellWord[], open: boolean): FormWords {
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

function firstMatch(rules: readonly ParsedRule[], forms: readonly FormWords[]): ParsedRule | undefined {
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

function factsOf(c: Collected, j: Judge, dotglob: boolean): PartFacts {
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

/** The verdict on one part outside bypassPermissions, once nothing denies and no guard asks. */
/** An allow rule that would let this part run (naming its code flag, if it has one). */
function suggestionsFor(c: Collected): string[] {
  const inner = c.view.forms[c.view.forms.length - 1] ?? [];
  const opaque = c.view.opaque[0];
  const words = c.view.privileged ? (c.view.forms[0] ?? []) : (c.view.forms[opaque?.form ?? -2] ?? inner);
  const rule = suggestBashRule(
    words.map((w) => w.value),
    opaque ? opaque.words : 1,
    c.view.env.map((w) => w.value),
  );
  return rule ? [rule] : [];
}

function allowOrAsk(f: PartFacts, j: Judge): PartVerdict {
  const { c, text, forms } = f;
  const ask = firstMatch(j.ask, forms);
  if (ask)
    return {
      text,
      decision: 'ask',
      reason: `"${text}" matches ${describeRule('ask', ask)}`,
      rule: ask.text,
      ...ruleOrigin(ask),
    };
  const inner = c.view.forms[c.view.forms.length - 1] ?? [];
  if (f.unreadable.length > 0) {
    // A rule helps only when all that stands in the way is code behind a flag it can name.
    const onlyCode = f.unreadable.every((u) => u.startsWith('it runs code'));
    const suggestions = onlyCode ? suggestionsFor(c) : [];
    return {
      text,
      decision: 'ask',
      reason: `"${text}" cannot be checked against the rules: ${f.unreadable.join('; ')}`,
      ...(suggestions.length > 0 ? { suggestions } : {}),
    };
  }
  if (f.unmatchable) return { text, decision: 'ask', reason: `"${text}" needs approval: ${f.unmatchable}` };
  if (c.view.forms.length === 0) return { text, decision: 'allow', reason: `"${text}" runs no command` };
  const allows = j.allow;
  const rule = allows.find((r) => matchBashSpec(r.specifier, formOf([...c.view.env, ...inner], c.open)));
  const outer = c.view.privileged
    ? allows.find((r) => matchBashSpec(r.specifier, formOf(c.view.forms[0] ?? [], c.open)))
    : undefined;
  const runsScript = c.view.scripts.length > 0;
  if ((rule !== undefined || runsScript) && (!c.view.privileged || outer !== undefined)) {
    const decided = rule ?? outer;
    return decided
      ? {
          text,
          decision: 'allow',
          reason: `"${text}" matches ${describeRule('allow', decided)}`,
          rule: decided.text,
          ...ruleOrigin(decided),
        }
      : { text, decision: 'allow', reason: `"${text}" runs a script whose commands are judged one by one` };
  }
  const sudo = c.view.privileged ? ` through ${c.view.forms[0]?.[0]?.value ?? 'sudo'}` : '';
  return { ...modeDefault(j.ctx.mode, 'exec', `running "${text}"${sudo}`, suggestionsFor(c)), text };
}

/** The first few items of a list, and how many more there are. */
function listed(items: string[], separator = ', '): string {
  const shown = items.slice(0, 5).join(separator);
  return items.length > 5 ? `${shown}${separator}and ${items.length - 5} more` : shown;
}

function strip(v: PartVerdict): PolicyDecision {
  const { text: _text, ...rest } = v;
  return rest;
}

function combine(verdicts: PartVerdict[], command: string): PolicyDecision {
  const asking = verdicts.filter((v) => v.decision === 'ask');
  const first = asking[0];
  if (first) {
    const suggestions = [...new Set(asking.flatMap((v) => v.suggestions ?? []))].slice(0, 10);
    const { suggestions: _s, ...rest } = strip(first);
    const reason =
      verdicts.length === 1
        ? rest.reason
        : `${asking.length} of ${verdicts.length} commands need approval (${listed(asking.map((v) => `"${v.text}"`))}); ${rest.reason}`;
    return { ...rest, reason, ...(suggestions.length > 0 ? { suggestions } : {}) };
  }
  if (verdicts.length === 0)
    return { decision: 'ask', reason: `"${short(command)}" runs no command that could be checked` };
  if (verdicts.length === 1) return strip(verdicts[0] as PartVerdict);
  const rules = [...new Set(verdicts.flatMap((v) => (v.rule ? [v.rule] : [])))];
  const reason = `every command is allowed: ${listed(
    verdicts.map((v) => v.reason),
    '; ',
  )}`;
  return rules.length === 1
    ? { decision: 'allow', reason, rule: rules[0] as string }
    : { decision: 'allow', reason };
}

/** The verdict on a whole command line. */
export function decideCommand(command: string, ctx: ExecContext): PolicyDecision {
  const bareDeny = ctx.rules.deny.find((r) => r.tool === 'Bash' && r.specifier === undefined);
  if (bareDeny)
    return {
      decision: 'deny',
      code: 'permission_denied',
      reason: `commands are denied by ${describeRule('deny', bareDeny)}`,
      rule: bareDeny.text,
      ...ruleOrigin(bareDeny),
    };
  const collection = collectCommand(command, ctx.projectDir, ctx.homeDir);
  const j = judgeOf(ctx);
  if (ctx.mode === 'plan' && collection.noGrammar === undefined) {
    const denied = collection.parts.map((c) => factsOf(c, j, collection.dotglob)).find((f) => f.deny);
    if (denied?.deny) return denied.deny;
    return planDenial('exec', `running "${short(command)}"`);
  }
  if (collection.noGrammar !== undefined)
    return ctx.mode === 'plan'
      ? planDenial('exec', `running "${short(command)}"`)
      : { decision: 'ask', reason: `"${short(command)}" cannot be checked: ${collection.noGrammar}` };
  const facts = collection.parts.map((c) => factsOf(c, j, collection.dotglob));
  const denied = facts.find((f) => f.deny);
  if (denied?.deny)
    return facts.length > 1
      ? { ...denied.deny, reason: `part of the command is denied: ${denied.deny.reason}` }
      : denied.deny;
  const guarded = facts.filter((f) => f.guard);
  if (guarded.length > 0)
    return combine(
      guarded.map((f) => ({
        ...(f.guard as PolicyDecision),
        text: f.text,
        decision: 'ask',
        reason: `"${f.text}": ${f.guard?.reason ?? ''}`,
      })),
      command,
    );
  const unreadable = [...collection.unreadable, ...facts.flatMap((f) => f.unreadable)];
  if (j.strict.length > 0 && unreadable.length > 0) {
    const which = j.strict
      .map((r) => `"${r.text}"`)
      .slice(0, 3)
      .join(', ');
    return {
      decision: 'ask',
      reason: `"${short(command)}" cannot be checked against the rules ${which}: ${[...new Set(unreadable)].slice(0, 3).join('; ')}`,
    };
  }
  if (ctx.mode === 'bypassPermissions')
    return {
      decision: 'allow',
      reason: `"${short(command)}": allowed in bypassPermissions mode (it runs in the sandbox)`,
    };
  const verdicts = facts.map((f) => allowOrAsk(f, j));
  if (collection.unreadable.length > 0)
    verdicts.push({
      text: short(command),
      decision: 'ask',
      reason: `"${short(command)}" cannot be read statically: ${collection.unreadable.slice(0, 3).join('; ')}`,
    });
  return combine(verdicts, command);
}
