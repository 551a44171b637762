// The mirror of /etc a command sees when /etc holds what other users may not read: it leaves out
// exactly what the per-entry hides hid (unreadable by others, sockets), shows the rest as it is
// (hard links, so an edit in place shows), is made again as soon as a directory of it changes (a
// secret added later stays out), is not trusted twice when made right after a change, and in the
// plan replaces the hides it makes needless while keeping the ones deny rules add. Last, the real
// /etc under each backend, as root: its secrets absent, the rest readable.
import { lstatSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EtcView, mirrorEtc } from '../../../src/host/capabilities/sandbox/etc-view.js';
import { planSandbox } from '../../../src/host/capabilities/sandbox/plan.js';
import type { SystemView } from '../../../src/host/capabilities/sandbox/system-view.js';
import { TreeScanner } from '../../../src/host/capabilities/sandbox/tree-scan.js';
import { runIn, sandboxBackends } from './sandbox-fixture.js';

const { available } = await sandboxBackends();

let base: string;
let etc: string;
let ws: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-etc-view-')));
  etc = path.join(base, 'etc');
  ws = path.join(base, 'ws');
  await mkdir(path.join(etc, 'ssl', 'certs'), { recursive: true });
  await mkdir(path.join(etc, 'ssl', 'private'), { mode: 0o700 });
  await mkdir(ws, { mode: 0o700 });
  await writeFile(path.join(etc, 'hostname'), 'box\n', { mode: 0o644 });
  await writeFile(path.join(etc, 'shadow'), 'root:$6$secret\n', { mode: 0o640 });
  await writeFile(path.join(etc, 'ssl', 'private', 'key.pem'), 'KEY\n', { mode: 0o600 });
  await writeFile(path.join(etc, 'ssl', 'certs', 'ca.pem'), 'CERT\n', { mode: 0o644 });
  await symlink('/usr/share/zoneinfo/UTC', path.join(etc, 'localtime'));
  // Modes exactly as given (the umask would narrow them).
  await chmod(path.join(etc, 'shadow'), 0o640);
  await chmod(path.join(etc, 'ssl', 'private'), 0o700);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const exists = (p: string) => lstatSync(p, { throwIfNoEntry: false }) !== undefined;
/** Past the change-time tick: a mirror made now is trusted until something changes. */
const settled = () => sleep(80);

describe('the /etc mirror', () => {
  it('leaves out what others may not read and sockets, and shows the rest as it is', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(etc, 'agent.sock'), resolve));
    try {
      await settled();
      const dir = new EtcView(etc, ws, 1).path();
      expect(dir).toBeDefined();
      const m = dir as string;
      expect(await readFile(path.join(m, 'hostname'), 'utf8')).toBe('box\n');
      expect(await readFile(path.join(m, 'ssl', 'certs', 'ca.pem'), 'utf8')).toBe('CERT\n');
      expect(lstatSync(path.join(m, 'localtime')).isSymbolicLink()).toBe(true);
      for (const gone of ['shadow', 'ssl/private', 'agent.sock'])
        expect(exists(path.join(m, gone))).toBe(false);
      // A hard link where the file system allows it: an edit in place shows at once.
      const [a, b] = [statSync(path.join(etc, 'hostname')), statSync(path.join(m, 'hostname'))];
      if (a.dev === b.dev) expect(b.ino).toBe(a.ino);
      expect(statSync(path.join(m, 'ssl')).mode & 0o777).toBe(statSync(path.join(etc, 'ssl')).mode & 0o777);
    } finally {
      server.close();
    }
  });

  it('is made again when a directory of it changes, and is the same mirror while none does', async () => {
    await settled();
    const view = new EtcView(etc, ws, 1);
    const first = view.path();
    expect(view.path()).toBe(first);
    // A secret added deep inside, and a public file: the next command sees the one and not the other.
    await writeFile(path.join(etc, 'ssl', 'certs', 'new-secret.key'), 'NEW\n', { mode: 0o600 });
    await chmod(path.join(etc, 'ssl', 'certs', 'new-secret.key'), 0o600);
    await writeFile(path.join(etc, 'ssl', 'certs', 'new.pem'), 'NEW CERT\n', { mode: 0o644 });
    await settled();
    const second = view.path();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(exists(path.join(second as string, 'ssl', 'certs', 'new-secret.key'))).toBe(false);
    expect(await readFile(path.join(second as string, 'ssl', 'certs', 'new.pem'), 'utf8')).toBe('NEW CERT\n');
  });

  it('made right after a change, serves that command only: the next binds /etc entry by entry until it is made again', async () => {
    const view = new EtcView(etc, ws, 1);
    await writeFile(path.join(etc, 'motd'), 'hi\n');
    const made = view.path();
    expect(made).toBeDefined();
    // A change in the same clock tick would have kept the directory's change time.
    expect(view.path()).toBeUndefined();
  });

  it('that cannot be made leaves /etc bound entry by entry, and is not tried again each command', async () => {
    const view = new EtcView(path.join(base, 'no-such-etc'), ws, 1);
    expect(view.path()).toBeUndefined();
    await mkdir(path.join(base, 'no-such-etc'));
    expect(view.path()).toBeUndefined();
  });

  it('is first made for the second command of a process', async () => {
    await settled();
    const view = new EtcView(etc, ws);
    expect(view.path()).toBeUndefined();
    expect(view.path()).toBeDefined();
  });
});

describe('a plan with /etc mirrored', () => {
  it('binds the mirror at /etc, drops the hides the mirror makes needless, keeps a deny rule on what it shows', async () => {
    const project = path.join(base, 'project');
    await mkdir(project);
    const system: SystemView = {
      roots: [{ path: etc, kind: 'dir' }],
      hidden: [
        { path: path.join(etc, 'shadow'), dir: false },
        { path: path.join(etc, 'ssl', 'private'), dir: true },
      ],
      withheld: [],
    };
    await settled();
    const mirrored = mirrorEtc(system, ws, etc);
    expect(mirrorEtc({ ...system, hidden: [] }, ws, etc).roots).toEqual(system.roots);
    // The first command of a process binds /etc itself; the second gets the mirror.
    expect(mirrored).toBe(system);
    const second = mirrorEtc(system, ws, etc);
    const root = second.roots[0];
    expect(root).toMatchObject({ path: etc, kind: 'dir' });
    expect(root !== undefined && root.kind === 'dir' ? root.source : undefined).toMatch(/etc-view-/);
    expect(second.hidden).toEqual([]);
    const planned = await planSandbox(
      {
        projectDir: project,
        cwd: project,
        home: undefined,
        pathVar: '',
        extraRoots: [],
        allowRead: [],
        denyRead: [path.join(etc, 'hostname'), path.join(etc, 'shadow')],
        protect: [],
        rules: {},
      },
      second,
      new TreeScanner(),
    );
    try {
      const ops = planned.plan.mounts.map((m) =>
        'target' in m
          ? `${m.kind} ${'source' in m && m.source !== m.target ? `${m.source} ` : ''}${m.target}`
          : m.kind,
      );
      expect(ops).toContain(`ro-bind ${root !== undefined && root.kind === 'dir' ? root.source : ''} ${etc}`);
      expect(ops).toContain(`hide-file ${path.join(etc, 'hostname')}`);
      expect(ops.some((o) => o.includes(path.join(etc, 'shadow')))).toBe(false);
      expect(ops.some((o) => o.includes(path.join(etc, 'ssl', 'private')))).toBe(false);
    } finally {
      await planned.protection.release();
    }
  });
});

describe.runIf(process.getuid?.() === 0)('the real /etc, as root', () => {
  for (const backend of available)
    it(`under ${backend.name}: its secrets are absent from the second command on, the rest reads`, async () => {
      const project = path.join(base, 'project');
      await mkdir(project);
      const command =
        'cat /etc/shadow /etc/gshadow 2>&1; ls -A /etc/ssl/private 2>&1; head -c 5 /etc/passwd; echo; { echo x > /etc/cadre-etc-view; } 2>&1';
      for (const run of ['first', 'second', 'third']) {
        const r = await runIn(backend, project, command, { home: path.join(base, 'home') });
        expect(r.stdout, run).not.toMatch(/^root:[^x\n]/m);
        expect(r.stdout, run).toContain('root:');
        expect(r.stdout, run).toMatch(/Read-only file system/);
      }
      expect(exists('/etc/cadre-etc-view')).toBe(false);
    });
});
