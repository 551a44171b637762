// The sandbox's probe, its program lookup and its argument lists: where bwrap may come from (never
// PATH, never the project), what a configured bwrap that does not work leads to, and the order of
// mounts each backend is given.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../../src/host/capabilities/sandbox.js';
import { systemBinary, trustExecutable } from '../../../src/host/capabilities/sandbox/binaries.js';
import { bwrapArgs, bwrapFeatures } from '../../../src/host/capabilities/sandbox/bwrap.js';
import { unshareLaunch, unshareMounts } from '../../../src/host/capabilities/sandbox/unshare.js';
import { unshareFeed } from '../../../src/host/capabilities/sandbox/unshare-launcher.js';
import { setidFilter, type SetidFilter } from '../../../src/host/capabilities/sandbox/seccomp-bpf.js';
import { createWorkspace, removeWorkspace } from '../../../src/host/capabilities/sandbox/workspace.js';
import type { SandboxPlan } from '../../../src/host/capabilities/sandbox/types.js';
import { runCommand } from '../../../src/host/capabilities/exec.js';
import { NO_BWRAP, sandboxBackends, systemPlan } from './sandbox-fixture.js';

const { available, missing } = await sandboxBackends();
for (const why of missing) console.log(`sandbox backend missing here: ${why}`);

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-sandbox-probe-')));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const plan: SandboxPlan = {
  cwd: '/p/sub',
  home: '/h',
  mounts: [
    { kind: 'ro-bind', source: '/usr', target: '/usr' },
    { kind: 'symlink', linkTarget: 'usr/bin', target: '/bin' },
    { kind: 'dev' },
    { kind: 'proc' },
    { kind: 'tmpfs', target: '/tmp', sizeBytes: 1000 },
    { kind: 'tmpfs', target: '/h', sizeBytes: 500 },
    { kind: 'ro-bind', source: '/h/.gitconfig', target: '/h/.gitconfig' },
    { kind: 'bind', source: '/p', target: '/p' },
    { kind: 'ro-bind', source: '/p/.git', target: '/p/.git' },
    { kind: 'hide-file', target: '/p/.env' },
    { kind: 'hide-dir', target: '/p/.ssh' },
  ],
};

describe('bwrap arguments', () => {
  it('unshares every namespace, drops capabilities as root, and mounts in the plan order', () => {
    const features = bwrapFeatures('--disable-userns ... --size BYTES');
    const args = bwrapArgs(plan, { emptyDir: '/E', emptyFile: '/F', root: true, features, seccompFd: 3 });
    expect(args.slice(0, 8)).toEqual([
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--ro-bind',
    ]);
    const joined = args.join(' ');
    expect(joined).toContain(
      '--dev /dev --size 67108864 --tmpfs /dev/shm --remount-ro /dev --proc /proc --size 1000 --tmpfs /tmp --size 500 --tmpfs /h --ro-bind /h/.gitconfig /h/.gitconfig --bind /p /p --ro-bind /p/.git /p/.git --ro-bind /F /p/.env --ro-bind /E /p/.ssh --seccomp 3 --chdir /p/sub --',
    );
    expect(args.at(-1)).toBe('--');
    // Not root: no --cap-drop (bwrap refuses it unprivileged, and a user namespace has none anyway).
    expect(
      bwrapArgs(plan, { emptyDir: '/E', emptyFile: '/F', root: false, features, seccompFd: 3 }),
    ).not.toContain('--cap-drop');
    // An old bwrap without --size or --disable-userns still gets a working argument list.
    const old = bwrapArgs(plan, {
      emptyDir: '/E',
      emptyFile: '/F',
      root: false,
      features: bwrapFeatures(''),
      seccompFd: 3,
    });
    expect(old).not.toContain('--size');
    expect(old).not.toContain('--disable-userns');
  });
});

describe('unshare invocation', () => {
  it('mounts the plan in order, makes mount points inside a tmpfs, and drops capabilities last, in one program', async () => {
    const ws = await createWorkspace();
    try {
      const filter = setidFilter('x64') as SetidFilter;
      const argv = unshareLaunch({
        tools: { perl: '/usr/bin/perl' },
        ws,
        filter,
        command: ['/bin/bash', '-c', 'echo hi'],
        cwd: plan.cwd,
        parentPid: 4242,
        uid: 1000,
        gid: 1001,
        cgroupProcs: '/sys/fs/cgroup/pids/x/tasks',
        pidMax: 1324,
      });
      expect(argv.slice(0, 2)).toEqual(['/usr/bin/perl', '-e']);
      const [program = '', ...rest] = argv.slice(2);
      expect(rest.slice(0, 6)).toEqual([
        filter.bytes.toString('hex'),
        '4242',
        '/sys/fs/cgroup/pids/x/tasks',
        '1000',
        '1001',
        ws.rootDir,
      ]);
      expect(rest.slice(6)).toEqual([plan.cwd, '1324', '', '/bin/bash', '-c', 'echo hi']);
      // The plan, fed once made: a line per mount, paths in hex (no path can break a line or a
      // field), then a line "." (a plan cut short mounts nothing).
      const hex = (s: string) => Buffer.from(s).toString('hex');
      const at = (p: string) => hex(path.join(ws.rootDir, p));
      const fed = unshareFeed(unshareMounts(plan, ws)).toString().split('\n');
      expect(fed.slice(-2)).toEqual(['.', '']);
      const steps = fed.slice(0, -2);
      expect(steps[0]).toBe(`B - ${hex(ws.rootDir)} ${hex(ws.rootDir)}`);
      expect(steps).toContain(`O - ${hex('/usr')} ${at('/usr')}`);
      expect(steps).toContain(`T - ${at('/tmp')} ${hex('size=1000,mode=1777')}`);
      expect(steps).toContain(`T - ${at('/h')} ${hex('size=500,mode=0700')}`);
      // /h/.gitconfig is a file inside the /h tmpfs: the launcher makes its mount point once /h is there.
      expect(steps).toContain(`O f ${hex('/h/.gitconfig')} ${at('/h/.gitconfig')}`);
      expect(steps).toContain(`B - ${hex('/p')} ${at('/p')}`);
      expect(steps).toContain(`O - ${hex(ws.emptyFile)} ${at('/p/.env')}`);
      expect(steps).toContain(`P - ${at('/proc')}`);
      expect(steps.indexOf(`T - ${at('/h')} ${hex('size=500,mode=0700')}`)).toBeLessThan(
        steps.indexOf(`O f ${hex('/h/.gitconfig')} ${at('/h/.gitconfig')}`),
      );
      expect(steps.at(-1)).toBe(`R - ${hex(ws.rootDir)}`);
      // The order of the steps that make the sandbox hold: die with cadre, cgroup, namespaces, ids,
      // fork, mounts, pivot, pid_max, the command's directory, the capability drop, no_new_privs,
      // the filter, exec.
      const order = [
        'syscall(157, 1, 9,',
        'getppid() != $ppid',
        'pids cgroup',
        'syscall(272, ',
        'uid_map',
        'fork()',
        'syscall(165, $none, $slash',
        'syscall(155, $here, $old)',
        'pid_max',
        'chdir($cwd)',
        'syscall(157, 24,',
        'syscall(126,',
        'syscall(157, 38,',
        'syscall(157, 22,',
        'exec {',
      ];
      const where = order.map((step) => program.indexOf(step));
      expect(where.every((i) => i >= 0)).toBe(true);
      expect([...where].sort((a, b) => a - b)).toEqual(where);
    } finally {
      await removeWorkspace(ws);
    }
  });
});

const perl = await systemBinary('perl');

describe.runIf(perl !== undefined && setidFilter() !== undefined)('the unshare launcher', () => {
  /** Runs the launcher for a plan of the system directories and `base`, with `parentPid`. */
  async function launch(parentPid: number, marker: string): Promise<number | null> {
    const ws = await createWorkspace();
    const real = systemPlan(base);
    try {
      const [file, ...args] = unshareLaunch({
        tools: { perl: perl as string },
        ws,
        filter: setidFilter() as SetidFilter,
        command: ['/bin/sh', '-c', `echo ran > ${marker}`],
        cwd: real.cwd,
        parentPid,
        uid: process.getuid?.() ?? 0,
        gid: process.getgid?.() ?? 0,
      });
      return await new Promise<number | null>((resolve) => {
        const child = spawn(file as string, args, {
          stdio: ['ignore', 'ignore', 'ignore', 'ignore', 'pipe'],
        });
        (child.stdio[4] as Writable).on('error', () => undefined).end(unshareFeed(unshareMounts(real, ws)));
        child.on('close', resolve);
      });
    } finally {
      await removeWorkspace(ws);
    }
  }

  it('starts nothing when its parent is not the cadre that planned it (cadre died before the launch)', async () => {
    const refused = path.join(base, 'launcher-refused');
    expect(await launch(1, refused)).toBe(125);
    expect(existsSync(refused)).toBe(false);
    // The same launch from its real parent runs the command.
    const ran = path.join(base, 'launcher-ran');
    expect(await launch(process.pid, ran)).toBe(0);
    expect(await readFile(ran, 'utf8')).toBe('ran\n');
  });
});

describe('where the sandbox program comes from', () => {
  it('never from PATH or the project: a planted bwrap first on PATH is not used', async () => {
    const planted = path.join(base, 'node_modules', '.bin');
    await mkdir(planted, { recursive: true });
    await writeFile(path.join(planted, 'bwrap'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${planted}:${saved ?? ''}`;
    try {
      const found = await systemBinary('bwrap');
      expect(found === undefined || !found.startsWith(base)).toBe(true);
      const status = await probeSandbox({ refresh: true });
      expect(status.bwrapPath ?? '').not.toContain(base);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('trusts only executables that other users cannot replace', async () => {
    const dir = path.join(base, 'shared');
    await mkdir(dir);
    await chmod(dir, 0o777);
    const bin = path.join(dir, 'bwrap');
    await writeFile(bin, '#!/bin/sh\n', { mode: 0o755 });
    expect(await trustExecutable(bin)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/changed by other users/),
    });
    expect(await trustExecutable('bwrap')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/absolute/),
    });
    expect(await trustExecutable('/nonexistent/bwrap')).toMatchObject({ ok: false });
    expect(await trustExecutable('/bin/sh')).toMatchObject({ ok: true });
  });

  it('a configured bwrap that does not work is reported, and unshare is tried next', async () => {
    const status = await probeSandbox({ bwrapPath: NO_BWRAP });
    expect(status.attempts[0]).toMatchObject({
      backend: 'bwrap',
      ok: false,
      detail: expect.stringContaining(`${NO_BWRAP} does not exist`),
    });
    expect(status.attempts[1]?.backend).toBe('unshare');
    expect(await probeSandbox({ bwrapPath: NO_BWRAP })).toBe(status);
  });
});

describe('no sandbox, no command', () => {
  it('refuses to run a command in auto and required when no backend works, naming the fix', async () => {
    const status = {
      available: false,
      mode: 'none' as const,
      detail: 'no sandbox works here (bwrap: not installed; unshare: denied)',
      fix: 'Install bubblewrap: apt-get install bubblewrap',
      attempts: [],
      processCap: { kind: 'none' as const, detail: 'no sandbox' },
      uid: 0,
      gid: 0,
      arch: process.arch,
    };
    for (const sandbox of ['auto', 'required'] as const) {
      await expect(
        runCommand({ command: `touch ${path.join(base, 'ran')}`, cwd: base, sandbox, sandboxStatus: status }),
      ).rejects.toMatchObject({
        code: 'sandbox_unavailable',
        message: expect.stringMatching(/no command runs without a sandbox[\s\S]*apt-get install bubblewrap/),
      });
    }
    await expect(readFile(path.join(base, 'ran'))).rejects.toThrow();
  });

  it('finds at least one working backend on this machine', () => {
    expect(available.length + missing.length).toBe(2);
    if (available.length === 0) console.log('no sandbox backend works here; the isolation tests skip');
  });
});
