// What a sandboxed command cannot do, under each backend, run by whoever runs the suite (root in
// CI): reach the network or the host's abstract sockets, keep a capability, see host processes,
// remount or unmount what hides or protects, write outside the project, or outlive its sandbox.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/host/capabilities/exec.js';
import { runIn, sandboxBackends, survivorsAfter, token } from './sandbox-fixture.js';

const { available } = await sandboxBackends();

let base: string;
let project: string;
let outside: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-isolation-')));
  project = path.join(base, 'project');
  await mkdir(project);
  // Outside /tmp too: the sandbox's /tmp is private anyway, so a write there proves nothing.
  outside = await mkdtemp(path.join('/var/tmp', 'cadre-isolation-outside-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe.skipIf(available.length === 0).each(available)('$name', (backend) => {
  it('cannot connect to a loopback TCP server or an abstract unix socket of the host', async () => {
    let connections = 0;
    const tcp = net.createServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end('hello\n');
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    // Node cannot listen on an abstract socket name with its length (libuv measures it with strlen):
    // a python listener on the host does, and counts its connections on stdout.
    const abstract = token('cadre-abstract');
    const listener = spawn('/usr/bin/python3', [
      '-c',
      `import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.bind('\\x00${abstract}')\ns.listen(5)\nprint('ready',flush=True)\nwhile True:\n  c,_=s.accept(); print('conn',flush=True); c.close()`,
    ]);
    let unixConnections = 0;
    await new Promise<void>((resolve) =>
      listener.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) resolve();
        unixConnections += (d.toString().match(/conn/g) ?? []).length;
      }),
    );
    const { port } = tcp.address() as net.AddressInfo;
    const probe =
      `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo tcp-connected) 2>/dev/null; ` +
      `/usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\x00${abstract}'); print('unix-connected')" 2>/dev/null; ` +
      'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "';
    try {
      const r = await runIn(backend, project, probe);
      expect(r.sandbox).toBe(backend.name);
      expect(r.stdout).toBe('lo\n');
      expect(connections + unixConnections).toBe(0);
      // The same probe outside the sandbox does connect: the servers and the probe are real.
      const open = await runCommand({ command: probe, cwd: project, sandbox: 'off' });
      expect(open.stdout).toMatch(/tcp-connected\nunix-connected\n/);
      // The listeners count on their own time (python's line comes over a pipe): wait for both
      // counts, not 100 ms; a connection from the sandboxed probe would make one of them 2.
      for (let i = 0; i < 200 && (connections === 0 || unixConnections === 0); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect([connections, unixConnections]).toEqual([1, 1]);
    } finally {
      tcp.close();
      listener.kill('SIGKILL');
    }
  });

  it('keeps no capability, cannot remount, unmount or nest namespaces to undo a mount', async () => {
    await writeFile(path.join(project, '.env'), 'TOKEN=isolation-canary\n');
    const r = await runIn(
      backend,
      project,
      [
        'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status',
        'mount -o remount,rw /usr 2>&1 && echo REMOUNTED',
        'umount .env 2>&1 && echo UMOUNTED',
        'mount -t tmpfs none /usr 2>&1 && echo MOUNTED',
        'unshare -rm sh -c "umount $PWD/.env; cat $PWD/.env" 2>&1',
        'cat .env',
        'touch /usr/cadre-pwned 2>&1',
      ].join('; '),
    );
    expect(r.stdout).toMatch(/CapPrm:\s+0+\nCapEff:\s+0+\nCapBnd:\s+0+\nCapAmb:\s+0+/);
    expect(r.stdout).not.toMatch(/REMOUNTED|UMOUNTED|MOUNTED|isolation-canary/);
    expect(r.stdout).toMatch(/Read-only file system/);
    await expect(stat('/usr/cadre-pwned')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('sees none of the host processes', async () => {
    const marker = token('host-marker');
    const host = spawn('sleep', [`1000.${marker.length}`, marker], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => host.once('spawn', resolve));
      const r = await runIn(
        backend,
        project,
        'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done; ls -d /proc/[0-9]* | wc -l',
      );
      expect(r.stdout).not.toContain(marker);
      expect(Number(r.stdout.trim().split('\n').at(-1))).toBeLessThan(10);
      // pid 1 is the sandbox's own, and its root is the sandbox's root, not the host's. Under
      // unshare pid 1 is the launcher's init, which the command may not read (nor trace): the
      // command's own shell, pid 2, shows the root instead.
      const first = backend.name === 'unshare' ? 2 : 1;
      const root = await runIn(
        backend,
        project,
        `ls /proc/1/root/ 2>&1 | head -1; ls /proc/${first}/root/ && ls /proc/${first}/root/work /proc/${first}/root/home 2>&1 | head -2`,
      );
      expect(root.stdout).toMatch(/usr/);
      expect(root.stdout).not.toMatch(/^wt$/m);
      if (backend.name === 'unshare')
        expect(root.stdout).toMatch(/^ls: cannot access '\/proc\/1\/root\/': Permission denied$/m);
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('cannot write outside the project, and reads only the allowlist', async () => {
    const target = path.join(outside, 'pwned.txt');
    await writeFile(path.join(outside, 'readable-elsewhere.txt'), 'outside-canary');
    const r = await runIn(
      backend,
      project,
      `echo x > ${target}; echo x > /etc/cadre-pwned; cat ${path.join(outside, 'readable-elsewhere.txt')}; ls /root /home /mnt /srv /media /var /run 2>&1; echo in > inside.txt`,
    );
    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat('/etc/cadre-pwned')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(r.stdout).not.toContain('outside-canary');
    expect(await readFile(path.join(project, 'inside.txt'), 'utf8')).toBe('in\n');
  });

  it('takes every process with it: setsid and nohup escapes die when the command ends', async () => {
    const marker = token('escape');
    const r = await runIn(
      backend,
      project,
      `setsid sleep 1000 ${marker} >/dev/null 2>&1 < /dev/null & nohup sleep 1000 ${marker} >/dev/null 2>&1 & disown; echo started`,
    );
    expect(r.stdout).toBe('started\n');
    expect(await survivorsAfter(marker)).toEqual([]);
  });

  it('gives commands a minimal environment without the host secrets', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-isolation-must-not-leak';
    try {
      const r = await runIn(backend, project, 'env');
      expect(r.stdout).not.toContain('sk-isolation-must-not-leak');
      expect(r.stdout).toMatch(/^TERM=dumb$/m);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it('is cancelled, and runs nothing, when aborted while its sandbox is being prepared', async () => {
    const controller = new AbortController();
    const target = path.join(project, `ran-${backend.name}`);
    const pending = runIn(backend, project, `sleep 0.3; touch ${target}`, {}, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
