// The shell policy against bash itself. Every command, generated or written here, runs in real
// bash under bubblewrap with stub programs that record their argv (test/support/bash-trace.ts),
// and what bash ran is compared with what the policy read:
// - whenever the policy reads a command as static, every program bash ran is one of the parts the
//   policy judged, with exactly the same words;
// - whenever the policy allows it under allow rules naming each program, the same holds;
// - whenever it allows it in bypassPermissions under `Bash(rm:*)` in deny, bash never ran rm;
// - whenever it allows it in bypassPermissions and it could name every file it touches, no program
//   saw a secret and no protected file changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  loadShellGrammar,
  type PolicyInput,
  type PolicyRules,
} from '../../../src/host/capabilities/policy.js';
import { collectCommand, type Collection } from '../../../src/host/capabilities/policy/exec-collect.js';
import { STUB_NAMES, traceWorld, type Trace, type TraceWorld } from '../../support/bash-trace.js';
import { readStatic } from '../../../src/host/capabilities/policy/shell-static.js';
import { CommandGenerator, FastLineGenerator, prng } from './shell-gen.js';

const HAND_WRITTEN = [
  // The bypasses named in issue 11, and their relatives.
  'ls $((a[$(rm -rf x)]))',
  "x='a[$(rm y)]'; ls $((x))",
  "x='a[$(rm y)]'; [[ $x -eq 1 ]]; ls",
  'ls ${x[$(rm y)]}',
  'ls $(cat <<EOF\n)\nEOF\n); rm x',
  'cat <<EOF | ls\n$(rm x)\nEOF',
  'ls <<EOF && rm y\nbody\nEOF',
  'echo $(<.env)',
  'x=rm; ${!x:-ls} a',
  'y=x; x=rm; ${!y} z',
  'cat ~/.ss?/id_rs?',
  'cat .e{n,x}v',
  'cat${IFS}.env',
  'r${IFS}m x',
  'X=rm; $X -rf y',
  'cat < .env',
  'cat < ~/.aws/credentials',
  // The grammar reads a descriptor glued to `>` as a word, and `time` as a command name.
  'cat 0>x',
  'ls 9>out.txt',
  'touch a 0>x ;',
  'time -la README.md',
  'time rm x',
  'echo x > .git/hooks/pre-commit',
  'echo {} > .cadre/config.json',
  "$'\\x72m' -rf x",
  "r''m x",
  '"r"m x',
  '\\rm x',
  'command rm x',
  'exec rm x',
  'eval "rm x"',
  'eval rm\\ x',
  "/bin/bash -c 'rm x'",
  '/bin/bash -c "ls; rm x"',
  'ls\rrm x',
  'ls\u000brm x',
  'ls # ; rm x',
  'ls \\\nrm x',
  'ls >out.txt rm x',
  'ls 2 >out.txt',
  'ls 2>out.txt',
  'ls && cat >out.txt',
  'ls | cat >>out.txt 2>&1',
  'ls || echo <>out.txt',
  'ls &>out.txt',
  'ls >&out.txt',
  'ls >|out.txt',
  'ls 3>out.txt',
  '>out.txt',
  'git -C sub push',
  "$'r'\\m x",
  'r\\\nm x',
  'ls a\\\nb',
  "ls $'a'\\| b",
  "eval 'cat .env' *.ts",
  'bash -c "cat .env $x"',
  'ls <<<"$(rm x)"',
  'ls <(rm x)',
  'f() { rm x; }; f',
  'alias ls=rm; ls x',
  'shopt -s expand_aliases; alias ls=rm\nls x',
  'a=(rm x); "${a[@]}"',
  'printf -v x rm; $x y',
  'read x <<<rm; $x y',
  'set -- rm x; "$@"',
  'IFS=r; x=arm; $x',
  'ls ~+ ~- ~root',
  'ls a=~/x b:~/y --o=~/z',
  'time ls | rm x',
  'time x=1 rm y',
  'time -p A=1 B=2 rm y',
  '\\time x=1 rm y',
  '! rm x',
  'coproc rm x',
  'ls & rm x',
  'ls;;rm x',
  "ls 'unterminated",
  'ls $"x"',
  "ls $'a\\'b' rm",
  'ls "a\\"b" rm',
  'ls \\\\; rm x',
  "ls 'a'\\''b'",
  'ls é\u00a0rm',
];

const ALLOW = { allow: [...STUB_NAMES.map((n) => `Bash(${n}:*)`), 'Bash(/bin/bash:*)'] };
const DENY_RM = { deny: ['Bash(rm:*)'] };
const CASES_GENERATED = 2000;
const FAST_GENERATED = 600;

let world: TraceWorld;

beforeAll(async () => {
  await loadShellGrammar();
  world = await traceWorld();
});
afterAll(() => world?.cleanup());

function verdict(command: string, mode: PolicyInput['mode'], rules: PolicyRules): string {
  return decide({
    capability: 'exec.run',
    command,
    projectDir: world.project,
    homeDir: world.home,
    mode,
    rules,
  }).decision;
}

/** Opaque code of a recorded program changes nothing here (the recorder runs nothing); a builtin's does. */
function harmlessOpaque(p: Collection['parts'][number]): boolean {
  return p.view.opaque.every((o) =>
    (STUB_NAMES as readonly string[]).includes(p.view.forms[o.form]?.[0]?.value ?? ''),
  );
}

/** The policy read every part of the command statically (it can compare words with bash's). */
function staticReading(c: Collection): boolean {
  return (
    c.unreadable.length === 0 &&
    c.parts.every(
      (p) =>
        p.view.unclear.length === 0 &&
        harmlessOpaque(p) &&
        p.part.words.every((w) => w.isStatic || w.inserted) &&
        p.part.assignments.every((a) => a.value.isStatic && !a.append) &&
        p.part.redirects.every((r) => r.kind !== 'heredoc' && (r.target === undefined || r.target.isStatic)),
    )
  );
}

/** Every file the command names is known before it runs (globs and braces included). */
function namesAreKnown(c: Collection): boolean {
  return (
    c.unreadable.length === 0 &&
    c.parts.every(
      (p) =>
        p.part.words.every((w) => w.complete) &&
        p.part.assignments.every((a) => a.value.complete) &&
        p.part.redirects.every((r) => r.kind !== 'heredoc' && (r.target === undefined || r.target.complete)),
    )
  );
}

/** Programs bash ran that no part the policy judged stands for, word for word. */
function unseen(c: Collection, trace: Trace): string[] {
  const seen = c.parts.flatMap((p) =>
    p.view.forms.map((f) => {
      const [name = '', ...args] = f.map((w) => w.value);
      return JSON.stringify([name.slice(name.lastIndexOf('/') + 1), ...args]);
    }),
  );
  return trace.invocations
    .map((inv) => JSON.stringify([inv.name, ...inv.args]))
    .filter((ran) => !seen.includes(ran));
}

/** What the policy makes of a command, before bash runs it. */
interface Judgement {
  collection: Collection;
  isStatic: boolean;
  allowed: boolean;
  allowedPastDeny: boolean;
  allowedInBypass: boolean;
}

function judge(command: string): Judgement {
  const collection = collectCommand(command, world.project, world.home);
  return {
    collection,
    isStatic: staticReading(collection),
    allowed: verdict(command, 'default', ALLOW) === 'allow',
    allowedPastDeny: verdict(command, 'bypassPermissions', DENY_RM) === 'allow',
    allowedInBypass: verdict(command, 'bypassPermissions', {}) === 'allow' && namesAreKnown(collection),
  };
}

/** The policy saw a redirection that writes `proj/out.txt`. */
function sawOutTxt(c: Collection): boolean {
  return c.parts.some((p) =>
    p.part.redirects.some(
      (r) => (r.kind === 'write' || r.kind === 'readwrite') && r.target?.value === 'out.txt',
    ),
  );
}

function problems(j: Judgement, trace: Trace): string[] {
  const out: string[] = [];
  const missed = unseen(j.collection, trace);
  if (j.isStatic && missed.length > 0) out.push(`read as static, but bash ran ${missed.join(', ')}`);
  if (j.isStatic && trace.wrote.includes('wrote proj/out.txt') && !sawOutTxt(j.collection))
    out.push('read as static, but bash wrote out.txt by a redirection the policy did not see');
  if (j.allowed && !j.isStatic) out.push('allowed by allow rules although not read as static');
  if (j.allowed && missed.length > 0) out.push(`allowed, but bash ran ${missed.join(', ')}`);
  if (j.allowedPastDeny && trace.invocations.some((i) => i.name === 'rm'))
    out.push('allowed in bypassPermissions under Bash(rm:*) in deny, but bash ran rm');
  if (j.allowedInBypass) {
    if (trace.invocations.some((i) => i.sawCanary))
      out.push('allowed in bypassPermissions, but a program saw a secret');
    const wrote = trace.wrote.filter((w) => !w.includes('outside.txt') && !w.includes('out.txt'));
    if (wrote.length > 0) out.push(`allowed in bypassPermissions, but it ${wrote.join(', ')}`);
  }
  return out;
}

/** Runs the commands in bash while the policy judges them (two cores: both at once). */
async function compare(
  commands: readonly string[],
): Promise<{ problems: string[]; judgements: Judgement[]; traces: Trace[] }> {
  const running = world.run(commands);
  const judgements = commands.map(judge);
  const traces = await running;
  const found = commands.flatMap((command, i) =>
    problems(judgements[i] as Judgement, traces[i] as Trace).map((p) => `${JSON.stringify(command)}: ${p}`),
  );
  return { problems: found, judgements, traces };
}

describe('the shell policy against bash', () => {
  it('agrees with bash on hand-written commands, the issue 11 bypasses among them', async () => {
    const { problems: found, traces } = await compare(HAND_WRITTEN);
    // The world works: the stubs recorded programs, and the oracles can see a secret and a write.
    expect(traces[HAND_WRITTEN.indexOf('cat .e{n,x}v')]?.invocations[0]?.sawCanary).toBe(true);
    expect(traces[HAND_WRITTEN.indexOf('cat < .env')]?.invocations[0]?.sawCanary).toBe(true);
    expect(traces[HAND_WRITTEN.indexOf('echo x > .git/hooks/pre-commit')]?.wrote).toEqual([
      'wrote proj/.git/hooks/pre-commit',
    ]);
    expect(traces[HAND_WRITTEN.indexOf('\\rm x')]?.invocations).toEqual([
      { name: 'rm', args: ['x'], sawCanary: false },
    ]);
    expect(found).toEqual([]);
  });

  it(`agrees with bash on ${CASES_GENERATED} generated commands (seed 11)`, async () => {
    const gen = new CommandGenerator(prng(11));
    const commands = Array.from({ length: CASES_GENERATED }, () => gen.list());
    const { problems: found, judgements, traces } = await compare(commands);
    expect(found).toEqual([]);
    // Enough of them are static, and ran programs, for the comparison to mean something.
    expect(judgements.filter((j) => j.isStatic).length).toBeGreaterThan(CASES_GENERATED / 5);
    expect(judgements.filter((j) => j.allowed).length).toBeGreaterThan(CASES_GENERATED / 10);
    expect(traces.filter((t) => t.invocations.length > 0).length).toBeGreaterThan(CASES_GENERATED / 2);
  }, 180_000);

  it(`agrees with bash on ${FAST_GENERATED} generated lines of the fast reader's language (seed 12)`, async () => {
    const gen = new FastLineGenerator(prng(12));
    const commands = Array.from({ length: FAST_GENERATED }, () => gen.line());
    const { problems: found, judgements, traces } = await compare(commands);
    expect(found).toEqual([]);
    // Most of them are read without the grammar, statically, and ran programs.
    const fast = commands.filter((c) => readStatic(c) !== undefined);
    expect(fast.length).toBeGreaterThan(FAST_GENERATED / 10);
    expect(
      judgements.filter((j, i) => j.isStatic && readStatic(commands[i] as string)).length,
    ).toBeGreaterThan(fast.length / 2);
    expect(traces.filter((t) => t.invocations.length > 0).length).toBeGreaterThan(FAST_GENERATED / 4);
  }, 180_000);
});
