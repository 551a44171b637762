// The verdict on a shell command: split into the simple commands bash would run, each judged on
// its own (deny rules, plan mode, secrets, ask rules, allow rules, redirections, the mode), then
// combined: any denied part denies the whole, any part that asks makes the whole ask.
import { matchBashSpec, suggestBashRule } from './bash-match.js';
import { modeDefault, planDenial } from './mode.js';
import {
  decideMentionedPath,
  decideRedirectTarget,
  type PathDecideContext,
  type RedirectVerdict,
} from './path-decide.js';
import { describeRule, ruleOrigin, type ParsedRule } from './rules.js';
import { parseShell, wordsCommand, type ShellCommand } from './shell-parse.js';
import { viewCommand, type CommandView } from './shell-unwrap.js';
import type { PolicyDecision } from './types.js';

/** What a command decision needs. */
export type ExecContext = PathDecideContext & { homeDir?: string };

/** One simple command's verdict, with its text for messages. */
interface PartVerdict extends PolicyDecision {
  text: string;
}

const MAX_NESTING = 4;
const NOT_A_FILE = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const WRITE_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

function short(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}...` : one;
}

/** Forms deny and ask rules see: each form, and a path-qualified command (`/bin/rm`) by its name too. */
function denyForms(view: CommandView): string[][] {
  const out: string[][] = [];
  for (const form of view.forms) {
    out.push(form);
    const head = form[0] ?? '';
    if (head.includes('/')) out.push([head.slice(head.lastIndexOf('/') + 1), ...form.slice(1)]);
  }
  return out;
}

/** Files a command writes through redirections (fd duplications and /dev/null are not files). */
function writeTargets(cmd: ShellCommand): { target: string; dynamic: boolean }[] {
  return cmd.redirects
    .filter(
      (r) =>
        WRITE_OPS.has(r.op) && !(r.op === '>&' && /^(\d+|-)$/.test(r.target)) && !NOT_A_FILE.has(r.target),
    )
    .map((r) => ({ target: r.target, dynamic: r.dynamic }));
}

function judgeTarget(t: { target: string; dynamic: boolean }, ctx: ExecContext): RedirectVerdict {
  if (!t.dynamic) return decideRedirectTarget(t.target, ctx);
  return ctx.mode === 'bypassPermissions'
    ? { decision: 'allow', reason: 'allowed in bypassPermissions mode' }
    : { decision: 'ask', reason: `it writes to a file named only when it runs (${t.target})` };
}

/** Judges one simple command; commands it runs (`bash -c`, `find -exec`) follow its own verdict. */
function judgePart(cmd: ShellCommand, ctx: ExecContext, depth: number): PartVerdict[] {
  const text = short(cmd.text || cmd.words.map((w) => w.value).join(' '));
  const view = viewCommand(cmd);
  const bash = (list: ParsedRule[]) => list.filter((r) => r.tool === 'Bash');
  const forms = denyForms(view);
  let nested: PartVerdict[] = [];
  if (depth < MAX_NESTING) {
    nested = [
      ...view.scripts.flatMap((s) => judgeScript(s, ctx, depth + 1)),
      ...view.commands.flatMap((words) =>
        judgePart(wordsCommand(words, words.map((w) => w.value).join(' ')), ctx, depth + 1),
      ),
    ];
  } else if (view.scripts.length > 0 || view.commands.length > 0) {
    view.unclear.push('it nests scripts too deeply');
  }

  const deny = bash(ctx.rules.deny).find((r) => forms.some((f) => matchBashSpec(r.specifier, f)));
  if (deny) {
    const reason = `"${text}" matches ${describeRule('deny', deny)} (deny rules win over every allow rule and mode)`;
    return [
      { text, decision: 'deny', code: 'permission_denied', reason, rule: deny.text, ...ruleOrigin(deny) },
    ];
  }
  const targets = writeTargets(cmd).map((t) => judgeTarget(t, ctx));
  const deniedTarget = targets.find((v) => v.decision === 'deny');
  if (deniedTarget)
    return [{ ...deniedTarget, text, reason: `"${text}" redirects its output: ${deniedTarget.reason}` }];
  const deniedNested = nested.find((v) => v.decision === 'deny');
  if (deniedNested) return [deniedNested];
  if (ctx.mode === 'plan') return [{ text, ...planDenial('exec', `running "${text}"`) }];

  // Secrets named as arguments, and redirections into secrets or configuration, ask in every mode.
  const inner = view.forms[view.forms.length - 1] ?? [];
  const guarded: PolicyDecision[] = inner.slice(1).flatMap((w) => {
    const value = w.startsWith('-') && w.includes('=') ? w.slice(w.indexOf('=') + 1) : w;
    // `@file` is how curl and friends read a file into an argument.
    const verdict = decideMentionedPath(value.startsWith('@') ? value.slice(1) : value, ctx);
    return verdict ? [verdict] : [];
  });
  guarded.push(...targets.filter((v) => v.guarded === true));
  const firstGuard = guarded[0];
  if (firstGuard)
    return [{ ...firstGuard, text, decision: 'ask', reason: `"${text}": ${firstGuard.reason}` }, ...nested];
  if (ctx.mode === 'bypassPermissions')
    return [{ text, decision: 'allow', reason: `"${text}": allowed in bypassPermissions mode` }, ...nested];

  const ask = bash(ctx.rules.ask).find((r) => forms.some((f) => matchBashSpec(r.specifier, f)));
  if (ask)
    return [
      {
        text,
        decision: 'ask',
        reason: `"${text}" matches ${describeRule('ask', ask)}`,
        rule: ask.text,
        ...ruleOrigin(ask),
      },
      ...nested,
    ];
  const allowAll = bareAllow(ctx);
  if (view.unclear.length > 0 && !allowAll) {
    return [
      {
        text,
        decision: 'ask',
        reason: `"${text}" cannot be checked against the rules: ${view.unclear.join('; ')}`,
      },
      ...nested,
    ];
  }
  if (view.empty) return [{ text, decision: 'allow', reason: `"${text}" runs no command` }, ...nested];

  const allows = bash(ctx.rules.allow);
  const outer = view.privileged
    ? allows.find((r) => matchBashSpec(r.specifier, view.forms[0] ?? []))
    : undefined;
  // A script runner (`bash -c`, `eval`) is judged through the commands of its script, listed apart.
  const runsScript = view.scripts.length > 0;
  const rule = runsScript ? undefined : allows.find((r) => matchBashSpec(r.specifier, inner));
  if ((runsScript || rule !== undefined) && (!view.privileged || outer !== undefined)) {
    const pending = targets.find((v) => v.decision !== 'allow');
    if (pending) {
      const extra = pending.suggestions ? { suggestions: pending.suggestions } : {};
      return [
        {
          text,
          decision: 'ask',
          reason: `"${text}" is allowed as a command, but its output redirection needs approval: ${pending.reason}`,
          ...extra,
        },
        ...nested,
      ];
    }
    const decided = rule ?? outer;
    const base: PartVerdict = decided
      ? {
          text,
          decision: 'allow',
          reason: `"${text}" matches ${describeRule('allow', decided)}`,
          rule: decided.text,
          ...ruleOrigin(decided),
        }
      : { text, decision: 'allow', reason: `"${text}" runs a script whose commands are judged one by one` };
    return [base, ...nested];
  }
  const redirects = writeTargets(cmd);
  const note =
    redirects.length > 0 ? ` (it also writes to ${redirects.map((t) => t.target).join(', ')})` : '';
  const sudo = view.privileged ? ` through ${view.forms[0]?.[0] ?? 'sudo'}` : '';
  const suggestion = suggestBashRule(view.privileged ? (view.forms[0] ?? []) : inner);
  const verdict = modeDefault(
    ctx.mode,
    'exec',
    `running "${text}"${sudo}${note}`,
    suggestion ? [suggestion] : [],
  );
  return [{ ...verdict, text }, ...nested];
}

function judgeScript(script: string, ctx: ExecContext, depth: number): PartVerdict[] {
  const parsed = parseShell(script);
  const verdicts = parsed.commands.flatMap((c) => judgePart(c, ctx, depth));
  if (parsed.problems.length > 0) {
    const reason = `"${short(script)}" cannot be read reliably: ${parsed.problems.join('; ')}`;
    const allowed = ctx.mode === 'bypassPermissions' || bareAllow(ctx) !== undefined;
    verdicts.push({ text: short(script), decision: allowed ? 'allow' : 'ask', reason });
  }
  return verdicts;
}

/** The first few items of a list, and how many more there are. */
function listed(items: string[], separator = ', '): string {
  const shown = items.slice(0, 5).join(separator);
  return items.length > 5 ? `${shown}${separator}and ${items.length - 5} more` : shown;
}

/** A bare `Bash` allow rule: every command is allowed, even one that cannot be read statically. */
function bareAllow(ctx: ExecContext): ParsedRule | undefined {
  return ctx.rules.allow.find((r) => r.tool === 'Bash' && r.specifier === undefined);
}

function strip(v: PartVerdict): PolicyDecision {
  const { text: _text, ...rest } = v;
  return rest;
}

/** The verdict on a whole command line. */
export function decideCommand(command: string, ctx: ExecContext): PolicyDecision {
  const bareDeny = ctx.rules.deny.find((r) => r.tool === 'Bash' && r.specifier === undefined);
  if (bareDeny) {
    return {
      decision: 'deny',
      code: 'permission_denied',
      reason: `commands are denied by ${describeRule('deny', bareDeny)}`,
      rule: bareDeny.text,
      ...ruleOrigin(bareDeny),
    };
  }
  const verdicts = judgeScript(command, ctx, 0);
  const denied = verdicts.find((v) => v.decision === 'deny');
  if (denied) {
    const rest = strip(denied);
    return verdicts.length > 1 ? { ...rest, reason: `part of the command is denied: ${rest.reason}` } : rest;
  }
  if (ctx.mode === 'plan') return planDenial('exec', `running "${short(command)}"`);
  if (verdicts.length === 0) {
    return ctx.mode === 'bypassPermissions'
      ? { decision: 'allow', reason: 'allowed in bypassPermissions mode' }
      : { decision: 'ask', reason: `"${short(command)}" runs no command that could be checked` };
  }
  const asking = verdicts.filter((v) => v.decision === 'ask');
  const first = asking[0];
  if (first) {
    const suggestions = [...new Set(asking.flatMap((v) => v.suggestions ?? []))].slice(0, 10);
    const rest = strip(first);
    const reason =
      verdicts.length === 1
        ? rest.reason
        : `${asking.length} of ${verdicts.length} commands need approval (${listed(asking.map((v) => `"${v.text}"`))}); ${rest.reason}`;
    const { suggestions: _s, ...withoutSuggestions } = rest;
    return { ...withoutSuggestions, reason, ...(suggestions.length > 0 ? { suggestions } : {}) };
  }
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
