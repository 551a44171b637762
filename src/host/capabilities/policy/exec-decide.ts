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
import { matchBashSpec, suggestBashRule } from './bash-match.js';
import { collectCommand, type Collected } from './exec-collect.js';
import { factsOf, firstMatch, formOf, judgeOf, short, type Judge, type PartFacts } from './exec-facts.js';
import { modeDefault, planDenial } from './mode.js';
import { describeRule, ruleOrigin } from './rules.js';
import type { ExecContext } from './shell-paths.js';
import type { PolicyDecision } from './types.js';

export type { ExecContext };

/** One part's verdict, with its text for messages. */
interface PartVerdict extends PolicyDecision {
  text: string;
}

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

/** The verdict on one part outside bypassPermissions, once nothing denies and no guard asks. */
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
  const allowForm = formOf(c.view.env.length > 0 ? [...c.view.env, ...inner] : inner, c.open);
  const rule = allows.find((r) => matchBashSpec(r.specifier, allowForm));
  const outerForm = c.view.privileged ? formOf(c.view.forms[0] ?? [], c.open) : undefined;
  const outer = outerForm ? allows.find((r) => matchBashSpec(r.specifier, outerForm)) : undefined;
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
