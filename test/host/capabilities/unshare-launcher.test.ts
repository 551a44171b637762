// The unshare backend's launcher attacked from inside, spawned the way cadre spawns it (its own
// process group, cadre as its parent). The command must never be the namespace's PID 1: an init
// may clear its own parent-death signal, SIGKILL the launcher through its process group and leave
// that group with setsid, and then nothing ends it. The launcher stays init; the command's exit
// code and signal still come through it. And a directory with a mount inside it (a volume in the
// project, a tmpfs under a readable directory) is bound whole, as bwrap binds it: the project's
// submount writable with its secrets hidden, a read-only directory's submount read-only too. The
// network namespace's own loopback is up, as under bwrap (a test server on 127.0.0.1 works).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemBinary } from '../../../src/host/capabilities/sandbox/binaries.js';
import { setidFilter, type SetidFilter } from '../../../src/host/capabilities/sandbox/seccomp-bpf.js';
import { unshareLaunch, unshareMounts } from '../../../src/host/capabilities/sandbox/unshare.js';
import { unshareFeed } from '../../../src/host/capabilities/sandbox/unshare-launcher.js';
import {
  createWorkspace,
  removeWorkspace,
  type Workspace,
} from '../../../src/host/capabilities/sandbox/workspace.js';
import { runIn, sandboxBackends, survivors, survivorsAfter, systemPlan, token } from './sandbox-fixture.js';

const perl = await systemBinary('perl');
const filter = setidFilter();

/** prctl's number here (PR_SET_PDEATHSIG is option 1). */
const PRCTL = process.arch === 'arm64' ? 167 : 157;

let base: string;
let ws: Workspace;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-launcher-attack-')));
  ws = await createWorkspace();
});
const markers: string[] = [];
afterAll(async () => {
  // A regression must not leave its escapees running on the machine.
  for (const marker of markers) for (const pid of await survivors(marker)) process.kill(pid, 'SIGKILL');
  await removeWorkspace(ws);
  await rm(base, { recursive: true, force: true });
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/** Runs `script` with bash through the launcher over the system directories and `base`. */
function launch(script: string): Promise<Ended> {
  const plan = systemPlan(base);
  const [file, ...args] = unshareLaunch({
    tools: { perl: perl as string },
    ws,
    filter: filter as SetidFilter,
    command: ['/bin/bash', '-c', script],
    cwd: plan.cwd,
    parentPid: process.pid,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
  });
  return new Promise((resolve) => {
    // As cadre spawns it: the launcher leads a process group of its own.
    const child = spawn(file as string, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore', 'ignore', 'pipe'],
    });
    (child.stdio[4] as Writable).end(unshareFeed(unshareMounts(plan, ws)));
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    // A process that escaped would hold stdout open forever: a second after the launcher exits, stop.
    child.on('exit', (code, signal) => {
      child.on('close', () => resolve({ code, signal, stdout }));
      setTimeout(() => {
        child.stdout?.destroy();
        resolve({ code, signal, stdout });
      }, 1000).unref();
    });
  });
}

describe.runIf(perl !== undefined && filter !== undefined)(
  'the unshare launcher, attacked from inside',
  () => {
    it('a command that clears its parent-death signal, kills the launcher and calls setsid does not outlive it', async () => {
      const marker = token('launcher-init');
      markers.push(marker);
      const escape = `exec perl -e 'require POSIX; $0 = "${marker}"; syscall(${PRCTL}, 1, 0, 0, 0, 0); kill "KILL", 0; POSIX::setsid(); sleep 3600'`;
      const r = await launch(escape);
      expect(r.signal).toBe('SIGKILL');
      expect(await survivorsAfter(marker, 3000)).toEqual([]);
    }, 30_000);

    it('the command is not PID 1, cannot trace, signal or read the launcher that is, and ends with its code', async () => {
      const r = await launch(
        'echo "me=$$"; tr "\\0" " " < /proc/1/cmdline | cut -c1-40; kill -KILL 1; kill -TERM 1; ' +
          'cat /proc/1/environ >/dev/null 2>&1 || echo environ-refused; ' +
          'python3 -c "import ctypes; print(\'seize\', ctypes.CDLL(None).ptrace(0x4206, 1, 0, 0))"; exit 7',
      );
      expect(r.stdout).toMatch(/^me=2$/m);
      expect(r.stdout).toContain(perl as string);
      expect(r.stdout).toContain('environ-refused');
      expect(r.stdout).toMatch(/^seize -1$/m);
      expect(r.code).toBe(7);
    }, 30_000);

    it('a command killed by a signal is reported as killed by it (a core-dumping one by its exit code)', async () => {
      const term = await launch('echo before; kill -TERM $$; echo survived');
      expect(term.stdout).toBe('before\n');
      expect(term.signal).toBe('SIGTERM');
      const segv = await launch('kill -SEGV $$');
      expect(segv.code).toBe(128 + 11);
    }, 30_000);
  },
);

const asRoot = process.getuid?.() === 0;
const { available } = await sandboxBackends();

describe.runIf(asRoot).each(available.map((b) => b.name))('%s, a mount inside a bound directory', (name) => {
  const backend = available.find((b) => b.name === name);
  let dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) execFileSync('umount', ['-l', dir]);
    dirs = [];
  });

  it('is there, writable in the project with its .env hidden, and read-only under a readable directory', async () => {
    const project = path.join(base, `project-${name}`);
    const readable = path.join(base, `readable-${name}`);
    const canary = token('submount-env');
    for (const dir of [path.join(project, 'data'), path.join(readable, 'sub')]) {
      await mkdir(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
      dirs.push(dir);
      await writeFile(path.join(dir, 'f.txt'), 'in-submount\n');
      await writeFile(path.join(dir, '.env'), `TOKEN=${canary}\n`);
    }
    const r = await runIn(
      backend as NonNullable<typeof backend>,
      project,
      `cat data/f.txt data/.env; echo w > data/new && echo wrote-project; cat ${readable}/sub/f.txt; ` +
        `echo w > ${readable}/sub/new && echo wrote-readable-sub; echo w > ${readable}/new && echo wrote-readable; echo end`,
      { allowRead: [readable] },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('in-submount\nwrote-project\nin-submount\nend\n');
    expect(r.stdout + r.stderr).not.toContain(canary);
    expect(existsSync(path.join(project, 'data', 'new'))).toBe(true);
    expect(existsSync(path.join(readable, 'sub', 'new'))).toBe(false);
  }, 30_000);
});

describe.each(available.map((b) => b.name))('%s, the loopback', (name) => {
  it("is the namespace's own and up: a server on 127.0.0.1 answers inside", async () => {
    const backend = available.find((b) => b.name === name);
    const server =
      'import socket\ns = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)\n' +
      'c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.send(b"loopback-ok"); print(a.recv(20).decode())';
    const r = await runIn(backend as NonNullable<typeof backend>, base, `python3 -c '${server}'`);
    expect(r.stdout, r.stderr).toBe('loopback-ok\n');
  }, 30_000);
});
