// Runs shell commands with the real bash, inside bubblewrap, and reports every program each one
// ran, with its exact arguments. PATH is an empty directory, so every program bash looks up is "not
// found" and bash hands it to `command_not_found_handle`, defined through BASH_ENV, which records
// its argv (and whether it saw a canary on stdin, in an argument, or in a file an argument names)
// in the child bash forked for it: no program is started at all. The builtins that are also
// programs (`echo`, `printf`, `test`, ...) are disabled, so they are recorded too. Each command
// runs as cadre runs one: `bash -c COMMAND` in the project directory.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** The text planted in secret files; the recorder reports a program that sees it. */
export const CANARY = 'CANARY-7f3a9c';

/** One program bash ran. */
export interface Invocation {
  name: string;
  args: string[];
  /** The canary reached it: on stdin, in an argument, or in a file an argument names. */
  sawCanary: boolean;
}

/** What one command did. */
export interface Trace {
  invocations: Invocation[];
  /** Protected or secret files it changed or created (`wrote proj/.git/hooks/pre-commit`). */
  wrote: string[];
}

/** A throwaway world: project, fake home, recorder. */
export interface TraceWorld {
  root: string;
  project: string;
  home: string;
  /** Runs the commands in order (one bwrap for all); one trace per command. */
  run(commands: readonly string[]): Promise<Trace[]>;
  cleanup(): Promise<void>;
}

/** Program names tests write rules for (the recorder records any name). */
export const STUB_NAMES = [
  'ls',
  'cat',
  'rm',
  'echo',
  'printf',
  'grep',
  'git',
  'npm',
  'touch',
  'cp',
  'mv',
  'head',
  'wc',
  'sort',
  'curl',
  'id',
  'true',
  'false',
  'test',
  '[',
  'pwd',
  'kill',
  'sleep',
  'base64',
  'tee',
  'chmod',
  'timeout',
  'nice',
  'env',
  'xargs',
  'find',
  'sudo',
  'make',
  'node',
  'python3',
  'sh',
  'date',
  'tr',
  'sed',
  'awk',
] as const;

// The handler runs in the child bash forked to start the program, so the builtins it turns back on
// stay off in the command's own shell.
const PRELUDE = `enable -n echo printf test [ true false pwd kill
command_not_found_handle() {
  enable echo printf test [ true false pwd kill
  local seen=0 input content a f
  if [[ ! -t 0 ]]; then IFS= read -r -d '' -t 2 input; [[ $input == *${CANARY}* ]] && seen=1; fi
  for a in "$@"; do
    [[ $a == *${CANARY}* ]] && seen=1
    for f in "$a" "\${a#*=}" "\${a#@}"; do
      if [[ -f $f && -r $f ]]; then IFS= read -r -d '' content < "$f"; [[ $content == *${CANARY}* ]] && seen=1; fi
    done
  done
  # One file per program run: programs of a pipeline run at once.
  { printf '%s\\0' "$(( $# + 1 ))" "$seen"; printf '%s\\0' "$@"; } > "$STUB_LOG.$BASHPID"
  return 0
}
`;

// Files a command must never change (relative to the world root), and their planted content.
const SENTINELS: Record<string, string> = {
  'proj/.env': `TOKEN=${CANARY}\n`,
  'proj/.cadre/config.json': '{}\n',
  'proj/.git/config': '[core]\n',
  'home/.ssh/id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}\n`,
  'home/.aws/credentials': `[default]\naws_secret_access_key=${CANARY}\n`,
};
// Files a command may create (removed after each): protected ones, one outside the project, and an
// ordinary one (proj/out.txt), which shows that a redirection bash performed was seen.
const MUST_NOT_EXIST = [
  'proj/.git/hooks/pre-commit',
  'proj/.vscode/settings.json',
  'outside.txt',
  'proj/out.txt',
];

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// Per command: run `bash -c`, then note (and restore) the sentinels it changed.
function driver(root: string): string {
  const files = Object.keys(SENTINELS).map(shellQuote).join(' ');
  const texts = Object.values(SENTINELS).map(shellQuote).join(' ');
  const absent = MUST_NOT_EXIST.map(shellQuote).join(' ');
  return `#!/bin/bash
root=${shellQuote(root)}
files=(${files})
texts=(${texts})
absent=(${absent})
i=0
# Processes in this PID namespace when no command runs: bwrap's init and this driver.
procs=(/proc/[0-9]*)
base=\${#procs[@]}
for k in "\${!files[@]}"; do printf '%s' "\${texts[k]}" > "$root/\${files[k]}"; done
while IFS= read -r -d '' cmd; do
  cd "$root/proj" || exit 1
  STUB_LOG="$root/logs/$i/run" PATH="$root/empty" HOME="$root/home" BASH_ENV="$root/prelude.sh" LANG=C.UTF-8 \\
    /bin/bash -c "$cmd" < /dev/null > /dev/null 2>&1
  # Wait (up to 2 s) for what it left running in the background, so its effects count for it.
  for ((t = 0; t < 200; t++)); do
    procs=(/proc/[0-9]*)
    (( \${#procs[@]} <= base )) && break
    /usr/bin/sleep 0.01
  done
  for k in "\${!files[@]}"; do
    IFS= read -r -d '' content < "$root/\${files[k]}"
    if [[ $content != "\${texts[k]}" ]]; then
      printf 'wrote %s\\n' "\${files[k]}" >> "$root/logs/$i/wrote"
      printf '%s' "\${texts[k]}" > "$root/\${files[k]}"
    fi
  done
  for f in "\${absent[@]}"; do
    if [[ -e $root/$f ]]; then printf 'wrote %s\\n' "$f" >> "$root/logs/$i/wrote"; /bin/rm -rf "$root/$f"; fi
  done
  i=$((i + 1))
done < "$root/cases"
exit 0
`;
}

function parseLog(bytes: Buffer): Invocation[] {
  const fields = bytes.toString('utf8').split('\0');
  const out: Invocation[] = [];
  let i = 0;
  while (i < fields.length - 1) {
    const count = Number(fields[i]);
    if (!Number.isInteger(count) || count < 2) throw new Error(`bad trace log near field ${i}`);
    const [seen, name, ...args] = fields.slice(i + 1, i + 1 + count);
    out.push({ name: name ?? '', args, sawCanary: seen === '1' });
    i += count + 1;
  }
  return out;
}

function execBwrap(args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/bwrap',
      args,
      { timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`bwrap failed: ${error.message}\n${stderr}`));
        else resolve();
      },
    );
  });
}

/** Makes a world in a temp directory. */
export async function traceWorld(): Promise<TraceWorld> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bash-trace-'));
  for (const dir of [
    'empty',
    'logs',
    'home/.ssh',
    'home/.aws',
    'proj/.git/hooks',
    'proj/.cadre',
    'proj/src',
    'proj/sub',
  ])
    await mkdir(path.join(root, dir), { recursive: true });
  for (const [file, text] of Object.entries(SENTINELS)) await writeFile(path.join(root, file), text);
  for (const file of ['proj/src/a.ts', 'proj/src/b.ts', 'proj/README.md', 'proj/sub/x.txt'])
    await writeFile(path.join(root, file), 'plain\n');
  await writeFile(path.join(root, 'prelude.sh'), PRELUDE);
  return {
    root,
    project: path.join(root, 'proj'),
    home: path.join(root, 'home'),
    async run(commands) {
      await rm(path.join(root, 'logs'), { recursive: true, force: true });
      await mkdir(path.join(root, 'logs'));
      await Promise.all(commands.map((_, i) => mkdir(path.join(root, 'logs', String(i)))));
      await writeFile(path.join(root, 'cases'), commands.map((c) => `${c}\0`).join(''));
      await writeFile(path.join(root, 'driver.sh'), driver(root));
      // The world's directory is the only writable place; no network, fresh /tmp.
      const sandbox = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev'];
      const mounts = ['--proc', '/proc', '--tmpfs', '/tmp', '--bind', root, root, '--chdir', root];
      await execBwrap(
        [...sandbox, ...mounts, '/bin/bash', path.join(root, 'driver.sh')],
        60_000 + commands.length * 100,
      );
      return Promise.all(
        commands.map(async (_, i) => {
          const dir = path.join(root, 'logs', String(i));
          const names = (await readdir(dir)).filter((n) => n.startsWith('run.')).sort();
          const logs = await Promise.all(names.map((n) => readFile(path.join(dir, n))));
          const wrote = await readFile(path.join(dir, 'wrote'), 'utf8').catch(() => '');
          return { invocations: logs.flatMap(parseLog), wrote: wrote.split('\n').filter((l) => l !== '') };
        }),
      );
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
