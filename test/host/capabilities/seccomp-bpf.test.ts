// The set-ID filter's generator: the bytes are a well-formed classic BPF program (every jump lands
// inside it, every path ends in a return), the architecture is checked first, and installed for
// real through the unshare backend's perl loader it refuses chmod 4755 while 755 works.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxFix } from '../../../src/host/capabilities/sandbox/diagnose.js';
import { FILTER_ARCHES, setidFilter } from '../../../src/host/capabilities/sandbox/seccomp-bpf.js';
import { perlLoader } from '../../../src/host/capabilities/sandbox/seccomp-load.js';

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

function decode(bytes: Buffer): Insn[] {
  const out: Insn[] = [];
  for (let i = 0; i < bytes.length; i += 8)
    out.push({
      code: bytes.readUInt16LE(i),
      jt: bytes.readUInt8(i + 2),
      jf: bytes.readUInt8(i + 3),
      k: bytes.readUInt32LE(i + 4),
    });
  return out;
}

const RET = 0x06;
const LD_ABS = 0x20;
const KILL_PROCESS = 0x80000000;

describe('the generator', () => {
  it('covers x86_64 and aarch64, with the architecture checked first, and nothing else', () => {
    expect([...FILTER_ARCHES].sort()).toEqual(['arm64', 'x64']);
    expect(setidFilter('riscv64')).toBeUndefined();
    const audits = { x64: 0xc000003e, arm64: 0xc00000b7 } as Record<string, number>;
    for (const arch of FILTER_ARCHES) {
      const filter = setidFilter(arch);
      if (filter === undefined) throw new Error(arch);
      expect(filter.bytes.length % 8).toBe(0);
      const p = decode(filter.bytes);
      // Built once per process: the same bytes every time.
      expect(setidFilter(arch)?.bytes).toBe(filter.bytes);
      expect(p.length).toBe(arch === 'x64' ? 32 : 25);
      // ld [arch]; jeq AUDIT_ARCH, next, -> ret KILL_PROCESS
      expect(p[0]).toEqual({ code: LD_ABS, jt: 0, jf: 0, k: 4 });
      expect(p[1]).toMatchObject({ code: 0x15, jt: 0, k: audits[arch] });
      expect(p[2 + (p[1]?.jf ?? 0)]).toEqual({ code: RET, jt: 0, jf: 0, k: KILL_PROCESS });
      // x86_64: the x32 ABI (syscall numbers with bit 30) is killed before any number is compared.
      if (arch === 'x64') {
        expect(p[2]).toEqual({ code: LD_ABS, jt: 0, jf: 0, k: 0 });
        expect(p[3]).toMatchObject({ code: 0x35, k: 0x40000000, jf: 0 });
        expect(p[4 + (p[3]?.jt ?? 0)]?.k).toBe(KILL_PROCESS);
      }
      // Well formed: every jump lands inside, and the last instruction returns.
      p.forEach((insn, pc) => {
        if ((insn.code & 0x07) === 0x05) {
          expect(pc + 1 + insn.jt).toBeLessThan(p.length);
          expect(pc + 1 + insn.jf).toBeLessThan(p.length);
        }
      });
      expect(p.at(-1)?.code).toBe(RET);
      // The set-ID bits are what every mode test looks at.
      expect(p.some((i) => i.code === 0x45 && i.k === 0o6000)).toBe(true);
    }
  });
});

describe.skipIf(!FILTER_ARCHES.includes(process.arch))('installed for real', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-bpf-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const own = setidFilter();
  const underFilter = (script: string, filter = own) => {
    if (filter === undefined) throw new Error('no filter');
    const [perl, ...pre] = perlLoader('/usr/bin/perl', filter);
    return spawnSync(perl ?? 'perl', [...pre, '/bin/sh', '-c', script], { cwd: dir, encoding: 'utf8' });
  };

  it('refuses chmod 4755 and 2755, allows 755, and shows as a filter in /proc', async () => {
    execFileSync('/bin/sh', ['-c', ': > a; : > b'], { cwd: dir });
    const r = underFilter(
      'grep "^Seccomp:" /proc/self/status; chmod 4755 a; echo "4755 $?"; chmod 2755 a; echo "2755 $?"; chmod 755 b; echo "755 $?"',
    );
    expect(r.stdout).toMatch(/^Seccomp:\s+2$/m);
    expect(r.stdout).toMatch(/^4755 1$/m);
    expect(r.stdout).toMatch(/^2755 1$/m);
    expect(r.stdout).toMatch(/^755 0$/m);
    expect(r.stderr).toMatch(/Operation not permitted/);
    expect((await stat(path.join(dir, 'a'))).mode & 0o7777).toBe(0o644 & ~process.umask());
    expect((await stat(path.join(dir, 'b'))).mode & 0o7777).toBe(0o755);
    // The same chmod without the filter sets the bit: the refusal above is the filter's.
    execFileSync('/bin/chmod', ['4755', 'a'], { cwd: dir });
    expect((await stat(path.join(dir, 'a'))).mode & 0o7777).toBe(0o4755);
  });

  it("kills a process whose syscalls are another architecture's", () => {
    const other = setidFilter(process.arch === 'x64' ? 'arm64' : 'x64');
    if (other === undefined || own === undefined) throw new Error('no filter');
    // The other architecture's program, installed with this one's prctl number.
    const r = underFilter('echo never', { ...other, prctl: own.prctl });
    expect(r.stdout).toBe('');
    expect(r.signal).toBe('SIGSYS');
  });
});

describe('the fix when no backend can install the filter', () => {
  const facts = {
    apparmorRestricted: false,
    unprivilegedCloneOff: false,
    maxUserNamespacesZero: false,
    container: false,
    uid: 1000,
  };
  it('names perl for the unshare backend, the architecture where there is no table, and the opt-out', () => {
    const noPerl = sandboxFix(facts, [
      { backend: 'bwrap', ok: false, detail: 'bubblewrap (bwrap) is not installed' },
      { backend: 'unshare', ok: false, detail: 'perl was not found in /usr/bin, /bin' },
    ]);
    expect(noPerl).toMatch(/apt-get install perl-base/);
    expect(noPerl).toMatch(/apt-get install bubblewrap/);
    expect(noPerl).toMatch(/"sandbox": "off"/);
    const arch = sandboxFix(facts, [
      { backend: 'bwrap', ok: false, binary: '/usr/bin/bwrap', detail: 'no syscall table for riscv64' },
    ]);
    expect(arch).toMatch(/covers x86_64 and aarch64 only/);
    expect(arch).not.toMatch(/perl-base/);
  });
});
