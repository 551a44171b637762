// The seccomp filter every sandboxed command runs under, generated as classic BPF bytes (no
// compiler at run time). It refuses the set-user-ID and set-group-ID mode bits: the project is
// mounted nosuid, which stops them only inside the sandbox, while on the host a file keeps them, so
// a command run by root could leave a set-user-ID root program for any local user. What it refuses:
// - chmod, fchmod, fchmodat, fchmodat2 with S_ISUID or S_ISGID in the mode: EPERM;
// - open, openat with O_CREAT or O_TMPFILE, creat, mknod, mknodat with either bit: EPERM;
// - openat2, whose mode sits in a struct the filter cannot read: ENOSYS (libc falls back to openat);
// - io_uring_setup, io_uring_enter, io_uring_register: ENOSYS (a ring's openat runs past seccomp);
// - a syscall of another architecture (the i386 ABI on x86_64) or of the x32 ABI: the process is killed.
// mkdir and mkdirat are let through: the kernel keeps only the permission and sticky bits of their
// mode (S_ISGID on a directory comes from its parent, never from the caller).

/** Numbers of the syscalls the unshare backend's launcher makes itself (besides prctl). */
interface StageSyscalls {
  unshare: number;
  mount: number;
  statfs: number;
  pivotRoot: number;
  umount2: number;
  setrlimit: number;
  capset: number;
  /** mount_setattr (Linux 5.12+): the same number on both architectures. */
  mountSetattr: number;
}

/** One architecture's facts: its audit id and the numbers of the syscalls the filter judges. */
interface ArchTable {
  /** AUDIT_ARCH_* as seccomp_data.arch reports it. */
  audit: number;
  /** Syscall numbers with bit 30 set belong to x32 (x86_64 only). */
  x32: boolean;
  /** prctl's number, for the loader that installs the filter itself. */
  prctl: number;
  /** The other syscalls the unshare backend's launcher makes itself (unshare-launcher.ts). */
  stage: StageSyscalls;
  /** Syscalls whose mode argument (index) is refused when it holds S_ISUID or S_ISGID. */
  mode: readonly (readonly [nr: number, arg: number])[];
  /** Syscalls whose flags (first index) may create a file with the mode (second index). */
  create: readonly (readonly [nr: number, flagsArg: number, modeArg: number])[];
  /** Syscalls refused with ENOSYS: openat2 and io_uring. */
  nosys: readonly number[];
}

const IO_URING = [425, 426, 427];
const OPENAT2 = 437;
const FCHMODAT2 = 452;

/** Node's `process.arch` → its table. aarch64 has only the *at forms (asm-generic numbers). */
const ARCHES: Readonly<Record<string, ArchTable>> = {
  x64: {
    audit: 0xc000003e,
    x32: true,
    prctl: 157,
    stage: {
      unshare: 272,
      mount: 165,
      statfs: 137,
      pivotRoot: 155,
      umount2: 166,
      setrlimit: 160,
      capset: 126,
      mountSetattr: 442,
    },
    // chmod, fchmod, fchmodat, fchmodat2, creat, mknod, mknodat
    mode: [
      [90, 1],
      [91, 1],
      [268, 2],
      [FCHMODAT2, 2],
      [85, 1],
      [133, 1],
      [259, 2],
    ],
    // open, openat
    create: [
      [2, 1, 2],
      [257, 2, 3],
    ],
    nosys: [OPENAT2, ...IO_URING],
  },
  arm64: {
    audit: 0xc00000b7,
    x32: false,
    prctl: 167,
    stage: {
      unshare: 97,
      mount: 40,
      statfs: 43,
      pivotRoot: 41,
      umount2: 39,
      setrlimit: 164,
      capset: 91,
      mountSetattr: 442,
    },
    // fchmod, fchmodat, fchmodat2, mknodat
    mode: [
      [52, 1],
      [53, 2],
      [FCHMODAT2, 2],
      [33, 2],
    ],
    // openat
    create: [[56, 2, 3]],
    nosys: [OPENAT2, ...IO_URING],
  },
};

/** S_ISUID | S_ISGID. */
const SETID_BITS = 0o6000;
/** O_CREAT | __O_TMPFILE: the same values on x86_64 and in asm-generic (aarch64). */
const CREATE_FLAGS = 0o100 | 0o20000000;

const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

/** struct seccomp_data: nr at 0, arch at 4, args at 16 (8 bytes each; the low half first). */
const NR = 0;
const ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;

/** One instruction; jumps name a label, resolved to relative offsets once the program is laid out. */
type Insn =
  | { op: 'ld'; k: number }
  | { op: 'ret'; k: number }
  | { op: 'jmp'; code: number; k: number; jt: string | 0; jf: string | 0 }
  | { op: 'label'; name: string };

function assemble(program: readonly Insn[]): Buffer {
  const at = new Map<string, number>();
  let n = 0;
  for (const insn of program)
    if (insn.op === 'label') at.set(insn.name, n);
    else n++;
  const out = Buffer.alloc(n * 8);
  let pc = 0;
  const offset = (target: string | 0): number => {
    if (target === 0) return 0;
    const to = at.get(target);
    const rel = to === undefined ? -1 : to - pc - 1;
    if (rel < 0 || rel > 255) throw new Error(`seccomp filter: jump to ${target} out of reach`);
    return rel;
  };
  for (const insn of program) {
    if (insn.op === 'label') continue;
    const [code, jt, jf, k] =
      insn.op === 'ld'
        ? [LD_W_ABS, 0, 0, insn.k]
        : insn.op === 'ret'
          ? [RET_K, 0, 0, insn.k]
          : [insn.code, offset(insn.jt), offset(insn.jf), insn.k];
    out.writeUInt16LE(code, pc * 8);
    out.writeUInt8(jt, pc * 8 + 2);
    out.writeUInt8(jf, pc * 8 + 3);
    out.writeUInt32LE(k >>> 0, pc * 8 + 4);
    pc++;
  }
  return out;
}

const jeq = (k: number, jt: string): Insn => ({ op: 'jmp', code: JEQ_K, k, jt, jf: 0 });

/** The program for one architecture's table (struct sock_filter[], little-endian). */
function program(t: ArchTable): Insn[] {
  const p: Insn[] = [
    { op: 'ld', k: ARCH },
    { op: 'jmp', code: JEQ_K, k: t.audit, jt: 0, jf: 'kill' },
    { op: 'ld', k: NR },
  ];
  if (t.x32) p.push({ op: 'jmp', code: JGE_K, k: 0x40000000, jt: 'kill', jf: 0 });
  for (const [nr, arg] of t.mode) p.push(jeq(nr, `mode${arg}`));
  for (const [nr, flags, mode] of t.create) p.push(jeq(nr, `create${flags}.${mode}`));
  for (const nr of t.nosys) p.push(jeq(nr, 'nosys'));
  p.push({ op: 'ret', k: RET_ALLOW });
  for (const [, flags, mode] of t.create)
    p.push(
      { op: 'label', name: `create${flags}.${mode}` },
      { op: 'ld', k: argLow(flags) },
      { op: 'jmp', code: JSET_K, k: CREATE_FLAGS, jt: `mode${mode}`, jf: 'allow' },
    );
  for (const arg of new Set([...t.mode.map(([, a]) => a), ...t.create.map(([, , m]) => m)]))
    p.push(
      { op: 'label', name: `mode${arg}` },
      { op: 'ld', k: argLow(arg) },
      { op: 'jmp', code: JSET_K, k: SETID_BITS, jt: 'eperm', jf: 'allow' },
    );
  p.push(
    { op: 'label', name: 'allow' },
    { op: 'ret', k: RET_ALLOW },
    { op: 'label', name: 'eperm' },
    { op: 'ret', k: RET_ERRNO | EPERM },
    { op: 'label', name: 'nosys' },
    { op: 'ret', k: RET_ERRNO | ENOSYS },
    { op: 'label', name: 'kill' },
    { op: 'ret', k: RET_KILL_PROCESS },
  );
  return p;
}

/** The filter for one architecture, ready for bwrap's `--seccomp` or for prctl. */
export interface SetidFilter {
  /** Node's name of the architecture. */
  arch: string;
  /** struct sock_filter[]: 8 bytes per instruction (u16 code, u8 jt, u8 jf, u32 k). */
  bytes: Buffer;
  /** prctl's syscall number on this architecture. */
  prctl: number;
  /** The unshare launcher's other syscall numbers on this architecture. */
  stage: StageSyscalls;
}

/** The architectures the filter covers (Node's names). */
export const FILTER_ARCHES: readonly string[] = Object.keys(ARCHES);

const built = new Map<string, SetidFilter>();

/**
 * The filter for `arch` (default: this process's), built once per process; undefined where cadre
 * has no syscall table for the architecture (the sandbox then refuses to run commands).
 */
export function setidFilter(arch: string = process.arch): SetidFilter | undefined {
  const table = ARCHES[arch];
  if (table === undefined) return undefined;
  let filter = built.get(arch);
  if (filter === undefined) {
    filter = { arch, bytes: assemble(program(table)), prctl: table.prctl, stage: table.stage };
    built.set(arch, filter);
  }
  return filter;
}
