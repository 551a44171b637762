import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/host/capabilities/exec.js';
import { bwrapArgs, probeSandbox, type SandboxStatus } from '../../../src/host/capabilities/sandbox.js';

// Probed before the suite is declared, so skipIf can name the reason.
const status: SandboxStatus = await probeSandbox();
const why = status.available ? '' : ` (skipped: ${status.detail})`;
console.log(`sandbox: ${status.mode}: ${status.detail}`);

describe('bwrapArgs', () => {
  it('isolates the network, mounts the root read-only and only the project writable, in order', () => {
    const args = bwrapArgs({
      projectDir: '/p',
      cwd: '/p/sub',
      extraWritable: ['/x'],
      hidden: ['/root/.ssh'],
    });
    expect(args).toEqual([
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/root/.ssh',
      '--bind',
      '/p',
      '/p',
      '--bind',
      '/x',
      '/x',
      '--chdir',
      '/p/sub',
    ]);
    expect(bwrapArgs({ projectDir: '/p' }).slice(-2)).toEqual(['--chdir', '/p']);
  });
});

describe('probeSandbox', () => {
  it('is cached per process', async () => {
    expect(await probeSandbox()).toBe(status);
  });

  it('reports a bwrap that cannot run as unavailable, with the reason', async () => {
    const r = await probeSandbox({ bwrap: '/nonexistent/bwrap' });
    expect(r).toMatchObject({ available: false, mode: 'none' });
    expect(r.detail).toContain('/nonexistent/bwrap');
  });
});

describe.skipIf(!status.available)(`sandboxed commands${why}`, () => {
  let base: string;
  let project: string;
  let outsideTmp: string;
  let outsideHome: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-sandbox-')));
    project = path.join(base, 'project');
    outsideTmp = path.join(base, 'outside');
    await import('node:fs/promises').then((fs) => Promise.all([fs.mkdir(project), fs.mkdir(outsideTmp)]));
    // A directory outside /tmp too, since the sandbox's /tmp is a private tmpfs anyway.
    outsideHome = await mkdtemp(path.join(os.homedir(), '.cadre-sandbox-test-'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
    await rm(outsideHome, { recursive: true, force: true });
  });

  const sandboxed = (command: string) => runCommand({ command, cwd: project, sandbox: 'required' });

  it('cannot connect to a loopback server that the host can reach', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      // The probe may close first; a reset on this side is expected, not a failure.
      socket.on('error', () => undefined);
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    try {
      const blocked = await sandboxed(probe);
      expect(blocked.sandbox).toBe('bwrap');
      expect(blocked.exitCode).not.toBe(0);
      expect(blocked.stdout).not.toContain('connected');
      expect(connections).toBe(0);
      // The same command unsandboxed does connect: the server and the probe are real.
      const open = await runCommand({ command: probe, cwd: project, sandbox: 'off' });
      expect(open.stdout).toContain('connected');
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('cannot write outside the project', async () => {
    const homeTarget = path.join(outsideHome, 'pwned.txt');
    const home = await sandboxed(`echo x > ${homeTarget}`);
    expect(home.exitCode).not.toBe(0);
    expect(home.stderr).toMatch(/Read-only file system/);
    await expect(stat(homeTarget)).rejects.toMatchObject({ code: 'ENOENT' });
    const tmpTarget = path.join(outsideTmp, 'pwned.txt');
    const tmp = await sandboxed(
      `mkdir -p ${outsideTmp} && echo x > ${tmpTarget}; echo x > ${path.join(os.homedir(), '.cadre-pwned')}`,
    );
    expect(tmp.stderr).toMatch(/Read-only file system/);
    await expect(stat(tmpTarget)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(path.join(os.homedir(), '.cadre-pwned'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('can write inside the project, and its /tmp is private', async () => {
    const r = await sandboxed(
      'mkdir -p out && echo inside > out/file.txt && echo scratch > /tmp/scratch && cat /tmp/scratch',
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: 'scratch\n' });
    expect(await readFile(path.join(project, 'out', 'file.txt'), 'utf8')).toBe('inside\n');
    await expect(stat('/tmp/scratch')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('hides directories it is told to, and ignores hidden ones that do not exist', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(outsideHome, 'id_rsa'), 'PRIVATE KEY');
    const visible = await sandboxed(`cat ${path.join(outsideHome, 'id_rsa')}`);
    expect(visible.stdout).toBe('PRIVATE KEY');
    const hidden = await runCommand({
      command: `cat ${path.join(outsideHome, 'id_rsa')}`,
      cwd: project,
      sandbox: 'required',
      hidden: [outsideHome, path.join(base, 'no-such-dir')],
    });
    expect(hidden.exitCode).not.toBe(0);
    expect(hidden.stdout).toBe('');
  });

  it('costs a few milliseconds per command (median of 20)', async () => {
    const median = async (mode: 'off' | 'required') => {
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await runCommand({ command: 'true', cwd: project, sandbox: mode });
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return ((times[9] ?? 0) + (times[10] ?? 0)) / 2;
    };
    const plain = await median('off');
    const boxed = await median('required');
    console.log(
      `bwrap overhead: median ${boxed.toFixed(1)} ms sandboxed vs ${plain.toFixed(1)} ms plain (+${(boxed - plain).toFixed(1)} ms)`,
    );
    expect(boxed - plain).toBeLessThan(100);
  });
});
