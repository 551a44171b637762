// The set-ID filter under each backend, run by whoever runs the suite (root in CI): no way a
// command knows leaves a set-user-ID or set-group-ID file in the project, io_uring and openat2 are
// not there to go around it, other ABIs are killed, and ordinary mode changes still work. The same
// attempts run without a sandbox do set the bits: they are real attempts.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { lstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/host/capabilities/exec.js';
import { trial } from '../../../src/host/capabilities/sandbox/trial.js';
import { runIn, sandboxBackends } from './sandbox-fixture.js';
import {
  attemptsCommand,
  makeSetidTar,
  ORDINARY,
  ORDINARY_NAMES,
  SETID_ATTEMPTS,
  setidFiles,
} from './setid-attempts.js';

const { available } = await sandboxBackends();
const asRoot = process.getuid?.() === 0;

/** Syscalls the filter takes away, called through perl: the result and errno of each. */
const RAW_CALLS = [
  `perl -e '$r = syscall(425, 1, 0); print "io_uring_setup $r ", $! + 0, "\\n"'`,
  `perl -e 'my $p = "x"; $r = syscall(437, -100, $p, 0, 0); print "openat2 $r ", $! + 0, "\\n"'`,
  ...(process.arch === 'x64'
    ? [`perl -e 'my $p = "x"; syscall(0x40000000 + 90, $p, 0); print "x32 returned\\n"'; echo "x32 exit $?"`]
    : []),
].join('\n');

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-setid-')));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function freshProject(name: string): Promise<string> {
  const dir = path.join(base, name);
  await mkdir(dir);
  makeSetidTar(dir);
  return dir;
}

describe('without a sandbox (the attempts are real)', () => {
  it('the same commands do leave set-ID files', async () => {
    const dir = await freshProject('unsandboxed');
    const r = await runCommand({ command: attemptsCommand(), cwd: dir, sandbox: 'off' });
    const found = setidFiles(dir).map((line) => line.split(' ')[0]);
    // Without root, cp -p and tar cannot keep a bit on a file they cannot give root's owner.
    const expected = SETID_ATTEMPTS.filter((a) => asRoot || !/cp -p|tar/.test(a.name)).map((a) => a.file);
    expect(found, r.stdout).toEqual(expect.arrayContaining(expected));
  });
});

describe.skipIf(available.length === 0).each(available)('$name', (backend) => {
  it('refuses every set-user-ID and set-group-ID mode, and keeps ordinary mode changes working', async () => {
    const project = await freshProject(`project-${backend.name}`);
    const r = await runIn(
      backend,
      project,
      `grep '^Seccomp:' /proc/self/status\n${attemptsCommand()}\n${ORDINARY}\n${RAW_CALLS}`,
      {},
      { timeoutMs: 60_000 },
    );
    expect(r.sandbox).toBe(backend.name);
    expect(r.stdout).toMatch(/^Seccomp:\s+2$/m);
    // Nothing in the project carries either bit, whatever each attempt left behind.
    expect(setidFiles(project), r.stdout).toEqual([]);
    for (const a of SETID_ATTEMPTS) {
      expect(r.stdout, a.name).toMatch(
        new RegExp(`^attempt ${a.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [1-9]`, 'm'),
      );
      const st = lstatSync(path.join(project, a.file), { throwIfNoEntry: false });
      expect(((st?.mode ?? 0) & 0o6000).toString(8), a.name).toBe('0');
    }
    for (const name of ORDINARY_NAMES) expect(r.stdout, r.stderr).toContain(`ok ${name}\n`);
    // io_uring and openat2 are not there (ENOSYS 38), so neither goes around the filter.
    expect(r.stdout).toMatch(/^io_uring_setup -1 38$/m);
    expect(r.stdout).toMatch(/^openat2 -1 38$/m);
    // The x32 ABI is not judged by the x86_64 numbers: the process is killed (SIGSYS, 128 + 31).
    if (process.arch === 'x64') expect(r.stdout).toMatch(/^x32 exit 159$/m);
  }, 90_000);

  it('installs the filter without a word on stderr, whatever the locale, and leaves the environment as it was', async () => {
    const lang = process.env.LANG;
    // A locale that is not installed: perl, the unshare backend's loader, would warn about it.
    process.env.LANG = 'xx_YY.UTF-8';
    try {
      const r = await runIn(
        backend,
        await freshProject(`locale-${backend.name}`),
        'echo hi; env | grep ^PERL',
      );
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('hi\n');
    } finally {
      if (lang === undefined) delete process.env.LANG;
      else process.env.LANG = lang;
    }
  });

  it('makes no set-group-ID directory: chmod g+s is refused, and mkdir(2) drops the bit itself', async () => {
    const project = await freshProject(`dirs-${backend.name}`);
    const r = await runIn(
      backend,
      project,
      [
        'mkdir -m 2755 d 2>/dev/null; echo "mkdir -m $?"',
        'mkdir e && chmod g+s e 2>/dev/null; echo "g+s $?"',
        // mkdir(2) itself, with the bit in its mode: the filter lets it through, the kernel drops it.
        `perl -e 'mkdir("f", 02755) or die "$!\\n"'; echo "mkdir(2) $?"`,
      ].join('\n'),
    );
    expect(r.stdout).toMatch(/^mkdir -m [1-9]/m);
    expect(r.stdout).toMatch(/^g\+s [1-9]/m);
    expect(r.stdout).toMatch(/^mkdir\(2\) 0$/m);
    expect(lstatSync(path.join(project, 'f')).isDirectory()).toBe(true);
    expect(setidFiles(project)).toEqual([]);
  });
});

describe('the raw calls outside a sandbox', () => {
  it('reach the kernel (so ENOSYS inside comes from the filter)', async () => {
    const r = await runCommand({ command: RAW_CALLS, cwd: base, sandbox: 'off' });
    expect(r.stdout).toMatch(/^io_uring_setup -1 (?!38\b)\d+$/m);
    expect(r.stdout).toMatch(/^openat2 -1 (?!38\b)\d+$/m);
  });
});

describe.skipIf(available.length === 0)('without the filter, no backend counts as working', () => {
  it.each(available)('$name: an architecture the filter does not cover', async (backend) => {
    const failure = await trial({ ...backend.status, arch: 'riscv64' });
    expect(failure).toMatch(/seccomp filter.*no syscall table for riscv64/);
  });

  it.each(available.filter((b) => b.name === 'unshare'))(
    '$name: no perl to install the filter',
    async (backend) => {
      const tools = backend.status.unshare;
      if (tools === undefined) throw new Error('an unshare status without its tools');
      const failure = await trial({ ...backend.status, unshare: { ...tools, perl: '/nonexistent/perl' } });
      expect(failure).toMatch(/\/nonexistent\/perl/);
    },
  );
});
