// `cadre doctor`'s self-test: real commands in the sandbox in force, each checking one promise from
// the outside where it can (a server that counts connections, a file that must not appear, a host
// process that must not be seen, a file mode that must not carry the set-user-ID bit) rather than
// trusting what the command says.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runCommand } from '../exec.js';
import type { SandboxStatus } from './types.js';

/** One check of the self-test. */
export interface SelfTestCheck {
  name: string;
  ok: boolean;
  /** What was seen. */
  detail: string;
}

type Run = (command: string) => Promise<{ stdout: string; stderr: string }>;

async function networkBlocked(run: Run): Promise<SelfTestCheck> {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    const r = await run(`(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1 && echo connected`);
    const ok = connections === 0 && !r.stdout.includes('connected');
    return {
      name: 'network blocked',
      ok,
      detail: ok
        ? 'a loopback server of the host got no connection'
        : `the command reached 127.0.0.1:${port}`,
    };
  } finally {
    server.close();
  }
}

async function outsideWriteRefused(run: Run, outside: string): Promise<SelfTestCheck> {
  const target = path.join(outside, 'written-by-sandbox');
  await run(`echo x > ${target}; echo x > /etc/cadre-doctor 2>/dev/null`);
  const landed =
    (await stat(target).then(
      () => true,
      () => false,
    )) ||
    (await stat('/etc/cadre-doctor').then(
      () => true,
      () => false,
    ));
  return {
    name: 'outside write refused',
    ok: !landed,
    detail: landed
      ? `a file appeared at ${target} or /etc/cadre-doctor`
      : 'nothing written outside the project reached the host',
  };
}

async function secretHidden(run: Run, project: string, canary: string): Promise<SelfTestCheck> {
  await writeFile(path.join(project, '.env'), `TOKEN=${canary}\n`);
  const r = await run('cat .env 2>&1');
  const ok = !r.stdout.includes(canary);
  return {
    name: 'hidden secret unreadable',
    ok,
    detail: ok ? '.env reads as empty' : 'the command read .env',
  };
}

async function noCapabilities(run: Run): Promise<SelfTestCheck> {
  const r = await run('grep -E "^Cap(Eff|Bnd):" /proc/self/status');
  const values = [...r.stdout.matchAll(/^Cap(?:Eff|Bnd):\s+([0-9a-f]+)$/gm)].map((m) => m[1] ?? '');
  const ok = values.length === 2 && values.every((v) => /^0+$/.test(v));
  return {
    name: 'no capabilities',
    ok,
    detail: ok ? 'CapEff and CapBnd are empty' : r.stdout.trim().replace(/\s+/g, ' '),
  };
}

async function hostProcessesHidden(run: Run, marker: string): Promise<SelfTestCheck> {
  const host = spawn('sleep', ['60', marker], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => host.once('spawn', resolve));
    const r = await run(
      'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "; echo; ls -d /proc/[0-9]* | wc -l',
    );
    const ok = !r.stdout.includes(marker);
    const count = r.stdout.trim().split('\n').at(-1) ?? '?';
    return {
      name: 'no host processes visible',
      ok,
      detail: ok ? `the command sees ${count} processes, all its own` : 'a host process was visible',
    };
  } finally {
    host.kill('SIGKILL');
  }
}

async function protectedReadOnly(run: Run, project: string): Promise<SelfTestCheck> {
  await mkdir(path.join(project, '.git', 'hooks'), { recursive: true });
  await run(
    'echo evil > .git/hooks/pre-commit 2>/dev/null; mkdir -p .vscode 2>/dev/null && echo {} > .vscode/tasks.json 2>/dev/null',
  );
  const landed =
    (await stat(path.join(project, '.git', 'hooks', 'pre-commit')).then(
      () => true,
      () => false,
    )) ||
    (await stat(path.join(project, '.vscode', 'tasks.json')).then(
      () => true,
      () => false,
    ));
  return {
    name: 'protected paths read-only',
    ok: !landed,
    detail: landed
      ? 'a git hook or .vscode/tasks.json was written'
      : 'a git hook and .vscode/tasks.json could not be written',
  };
}

async function setidRefused(run: Run, project: string): Promise<SelfTestCheck> {
  const r = await run(
    'grep "^Seccomp:" /proc/self/status; cp /usr/bin/env setid && chmod 4755 setid 2>/dev/null; chmod g+s setid 2>/dev/null; chmod 755 setid && echo chmod-755-ok',
  );
  const mode = await stat(path.join(project, 'setid')).then(
    (st) => st.mode & 0o7777,
    () => undefined,
  );
  const ok = mode === 0o755 && r.stdout.includes('chmod-755-ok');
  const filter = /^Seccomp:\s*(\d)/m.exec(r.stdout)?.[1] ?? '?';
  return {
    name: 'set-user-ID files refused',
    ok,
    detail: ok
      ? `chmod 4755 and g+s were refused, chmod 755 worked (seccomp mode ${filter})`
      : `the file's mode is ${mode === undefined ? 'missing' : mode.toString(8)} (seccomp mode ${filter})`,
  };
}

/** Runs every check in the sandbox `status` describes (which must be available). */
export async function sandboxSelfTest(status: SandboxStatus): Promise<SelfTestCheck[]> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-doctor-')));
  const project = path.join(base, 'project');
  // A sibling of the project: on the host it exists and is writable; to the command it is not there.
  const outside = path.join(base, 'outside');
  await mkdir(project);
  await mkdir(outside);
  const marker = `cadre-doctor-${process.pid}-${Date.now()}`;
  const run: Run = (command) =>
    runCommand({ command, cwd: project, sandbox: 'auto', sandboxStatus: status, timeoutMs: 20_000 });
  try {
    return [
      await networkBlocked(run),
      await outsideWriteRefused(run, outside),
      await secretHidden(run, project, marker),
      await noCapabilities(run),
      await hostProcessesHidden(run, marker),
      await protectedReadOnly(run, project),
      await setidRefused(run, project),
    ];
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
