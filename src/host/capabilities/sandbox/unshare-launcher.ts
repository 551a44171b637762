// The unshare backend's whole launch, in one perl process (perl-base is Essential on Debian and
// Ubuntu) from cadre's spawn to the command's exec. It does what bwrap does, with the same kernel
// calls: set a parent-death signal and check that cadre is still its parent, join the command's
// pids cgroup, unshare(2) the user (mapped to root), mount, PID, IPC, UTS, network (its own
// loopback up, as bwrap's) and cgroup namespaces, fork the namespace's first process and wait for it. That process mounts the plan
// onto a skeleton root, pivots into it and detaches the old one, caps pid_max when asked, and forks
// the command, then stays the namespace's init, as bwrap's does: the command is never PID 1, which
// could clear its own parent-death signal, kill the launcher (its process group) and leave the
// group with setsid, outliving cadre. The command's process caps RLIMIT_NPROC when asked, enters
// the command's directory, drops every capability (bounding, ambient, inheritable, permitted and
// effective sets), sets no_new_privs and the set-ID filter (seccomp-bpf.ts), and execs the command. One program instead of a chain (setpriv, a launcher shell, util-linux
// unshare, a mount script with `mount -a` per phase, the last stage): each program started costs
// about a millisecond of every command. Any step that fails stops the command before it starts
// (exit 125, with the step named on stderr).
import type { SetidFilter } from './seccomp-bpf.js';
import { FEED_FD } from './types.js';

/** A mount point to make inside a tmpfs of the plan before mounting on it. */
export type MakePoint = 'none' | 'dir' | 'file';

/** One step of the namespace's file system, in order. */
export type LauncherMount =
  | { kind: 'bind'; source: string; target: string; readOnly: boolean; make: MakePoint }
  | { kind: 'tmpfs'; target: string; options: string; make: MakePoint }
  | { kind: 'proc'; target: string }
  | { kind: 'remount-ro'; target: string };

/** What the launcher needs for one command. */
export interface LauncherRequest {
  perl: string;
  filter: SetidFilter;
  /** cadre's pid: the launcher refuses to start when its parent is not (or no longer) this process. */
  parentPid: number;
  /** The file that joins the command's pids cgroup (`tasks` or `cgroup.procs`), when there is one. */
  cgroupProcs?: string;
  /** The ids mapped to root inside. */
  uid: number;
  gid: number;
  /** The skeleton the plan is mounted on, and the root after the pivot. */
  root: string;
  /** The command's directory, inside the new root. */
  cwd: string;
  /** Cap the namespace's PIDs with its pid_max (root without a pids cgroup). */
  pidMax?: number;
  /** Cap processes with RLIMIT_NPROC (a user other than root). */
  nproc?: number;
  command: readonly string[];
}

/** prctl options, mount flags and namespace flags (linux/prctl.h, linux/mount.h, linux/sched.h). */
const PR_SET_PDEATHSIG = 1;
const PR_SET_SECCOMP = 22;
const SECCOMP_MODE_FILTER = 2;
const PR_CAPBSET_DROP = 24;
const PR_SET_NO_NEW_PRIVS = 38;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
const SIGKILL = 9;
const MNT_DETACH = 2;
const MS_RDONLY = 1;
const MS_NOSUID = 2;
const MS_NODEV = 4;
const MS_NOEXEC = 8;
const MS_REMOUNT = 32;
const MS_NOATIME = 1024;
const MS_NODIRATIME = 2048;
const MS_BIND = 4096;
const MS_REC = 16384;
const MS_PRIVATE = 1 << 18;
const MS_RELATIME = 1 << 21;
const MS_STRICTATIME = 1 << 24;
/** statfs's f_flags bit for relatime (the others share MS_*'s values). */
const ST_RELATIME = 0x1000;
/** struct statfs's f_flags: the eleventh 8-byte field on x86_64 and aarch64. */
const STATFS_FLAGS_OFFSET = 80;
const RLIMIT_NPROC = 6;
/** What brings the loopback interface up (linux/sockios.h, linux/if.h; struct ifreq is 40 bytes). */
const AF_INET = 2;
const SOCK_DGRAM = 2;
const SIOCSIFFLAGS = 0x8914;
const IFF_UP = 1;
/** mount_setattr's arguments (linux/fcntl.h, linux/mount.h). */
const AT_FDCWD = -100;
const AT_RECURSIVE = 0x8000;
const MOUNT_ATTR_RDONLY = 1;
const CLONE_NEWNS = 0x00020000;
const CLONE_NEWCGROUP = 0x02000000;
const CLONE_NEWUTS = 0x04000000;
const CLONE_NEWIPC = 0x08000000;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWPID = 0x20000000;
const CLONE_NEWNET = 0x40000000;
const NAMESPACES =
  CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWCGROUP;
/** Capability numbers tried; the first the kernel does not know (EINVAL) ends the bounding-set drop. */
const CAP_CEILING = 63;

/**
 * The part outside the namespaces: die with cadre, join the cgroup, unshare, map the ids, fork the
 * namespace's first process and pass on how it ended. Like util-linux unshare, the waiting parent
 * ignores SIGHUP, SIGINT and SIGTERM: a command's group is signalled as a whole, and the end of its
 * first process decides the exit. A pipe tells the child whether its parent died before the child's
 * own parent-death signal was set (in a new PID namespace getppid() says 0); another brings back the
 * command's wait status from the namespace's init (an init cannot die of a signal it sends itself).
 */
function outsideScript(filter: SetidFilter): string[] {
  const { prctl, stage } = filter;
  return [
    'my ($f, $ppid, $tasks, $uid, $gid, $root, $cwd, $pidmax, $nproc) = splice(@ARGV, 0, 9);',
    'sub fail { print STDERR "cadre: the sandbox could not be set up ($_[0]): $!\\n"; exit 125; }',
    `syscall(${prctl}, ${PR_SET_PDEATHSIG}, ${SIGKILL}, 0, 0, 0) == 0 or fail("parent-death signal");`,
    'exit 125 if getppid() != $ppid;',
    // A `my` variable is not visible until the statement after it: each handle is declared first.
    'sub put { my ($file, $text, $step) = @_; my $h; open($h, ">", $file) && syswrite($h, $text) && close($h) or fail($step); }',
    'put($tasks, "0", "pids cgroup") if $tasks ne "";',
    `syscall(${stage.unshare}, ${NAMESPACES}) == 0 or fail("namespaces");`,
    'put("/proc/self/$_->[0]", $_->[1], $_->[0]) for ["setgroups", "deny"], ["uid_map", "0 $uid 1"], ["gid_map", "0 $gid 1"];',
    'pipe(my $alive, my $held) && pipe(my $told, my $tell) or fail("pipe");',
    'my $pid = fork() // fail("fork");',
    'if ($pid != 0) {',
    '  close($alive); close($tell);',
    `  open(my $feed, "<&=", ${FEED_FD}) and close($feed);`,
    '  $SIG{$_} = "IGNORE" for qw(HUP INT TERM);',
    '  waitpid($pid, 0) == $pid or fail("wait");',
    // How the command ended, as the namespace's first process tells it (nothing if it was killed).
    '  my $st = $?; my $line = <$told>;',
    '  $st = $1 if defined $line && $line =~ /^(\\d+)$/;',
    '  my $sig = $st & 127;',
    '  exit($st >> 8) if $sig == 0;',
    // Signals that would dump a core (in the command's directory) are told by the exit code.
    '  exit(128 + $sig) if grep { $_ == $sig } 3, 4, 5, 6, 7, 8, 11, 24, 25, 31;',
    '  my %name = (1 => "HUP", 2 => "INT", 15 => "TERM");',
    '  $SIG{$name{$sig}} = "DEFAULT" if exists $name{$sig};',
    '  kill($sig, $$);',
    '  exit(128 + $sig);',
    '}',
    'close($held); close($told);',
    `syscall(${prctl}, ${PR_SET_PDEATHSIG}, ${SIGKILL}, 0, 0, 0) == 0 or fail("parent-death signal");`,
    'my $rin = ""; vec($rin, fileno($alive), 1) = 1;',
    'exit 125 if select($rin, undef, undef, 0) != 0;',
    'close($alive);',
  ];
}

/**
 * The part inside, as the namespace's first process. syscall passes a string as a pointer to its
 * buffer, which must be a variable's (writable), and a number as itself: flags are computed, paths
 * are unpacked from hex. Binds take the mounts inside their source along, as bwrap's do: the kernel
 * refuses (EINVAL) a bind in a user namespace that would leave a mount inside out, so a project
 * holding a volume could not be bound at all. A read-only bind is made read-only whole with
 * mount_setattr (Linux 5.12+), which sets that one attribute and keeps the others; where the
 * kernel lacks it, the bind is of the source's own mount alone (refused, as before, if it holds
 * another), remounted with the flags the kernel locks on it kept (nosuid, nodev, noexec, the atime
 * mode), as libmount does, or the remount is refused. The skeleton root's final remount is of
 * itself alone: the project under it stays writable. Once the
 * root is pivoted, this process forks the command and stays the namespace's init: it keeps its
 * capabilities in the namespace, so the command, which has none, can neither trace it nor read its
 * /proc entries, and as init it gets no signal from inside that it has no handler for; it reaps
 * orphans, and ends (ending every process left in the namespace) when the command ends.
 */
function insideScript(filter: SetidFilter): string[] {
  const { prctl, stage } = filter;
  const locked = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME;
  return [
    'my ($none, $slash, $tmpfs, $proc) = ("none", "/", "tmpfs", "proc");',
    `syscall(${stage.mount}, $none, $slash, 0, ${MS_REC | MS_PRIVATE}, 0) == 0 or fail("mount propagation");`,
    // The new network namespace's loopback starts down: up, it is the namespace's own (127.0.0.1, ::1).
    `my ($s, $ifr) = (undef, pack("a16 s x22", "lo", ${IFF_UP}));`,
    `socket($s, ${AF_INET}, ${SOCK_DGRAM}, 0) && ioctl($s, ${SIOCSIFFLAGS}, $ifr) && close($s) or fail("loopback");`,
    'sub mkpath { my $p = ""; for (grep { length } split m{/}, $_[0]) { $p .= "/$_"; mkdir($p, 0755) or $!{EEXIST} or fail("mkdir $p"); } }',
    // The plan arrives once cadre has made it, while all of the above ran: it must end with ".".
    `open(my $feed, "<&=", ${FEED_FD}) or fail("the plan's descriptor");`,
    'my $plan = do { local $/; <$feed> };',
    'close($feed);',
    'defined $plan && $plan =~ s/\\n\\.\\n\\z// or do { $! = 0; fail("the plan was cut short") };',
    'sub point {',
    '  my ($make, $at) = @_;',
    '  if ($make eq "d") { mkpath($at); }',
    '  elsif ($make eq "f") { (my $d = $at) =~ s{/[^/]*$}{}; mkpath($d); my $h; open($h, ">>", $at) && close($h) or fail("mount point $at"); }',
    '}',
    `sub mount_bind { syscall(${stage.mount}, $_[0], $_[1], 0, $_[2], 0) == 0 or fail("bind $_[1]"); }`,
    'sub readonly {',
    '  my $at = $_[0]; my $buf = "\\0" x 256;',
    `  syscall(${stage.statfs}, $at, $buf) == 0 or fail("statfs $at");`,
    `  my $st = unpack("x${STATFS_FLAGS_OFFSET} Q", $buf);`,
    `  my $fl = ${MS_REMOUNT | MS_BIND | MS_RDONLY} | ($st & ${locked});`,
    `  $fl |= ($st & ${ST_RELATIME}) ? ${MS_RELATIME} : ($st & ${MS_NOATIME}) ? 0 : ${MS_STRICTATIME};`,
    `  syscall(${stage.mount}, 0, $at, 0, $fl, 0) == 0 or fail("read-only $at");`,
    '}',
    // mount_setattr with no attributes: EINVAL where the kernel has it (ENOSYS or EPERM where not).
    `my $tree = syscall(${stage.mountSetattr}, ${AT_FDCWD}, $slash, 0, 0, 0) == -1 && $!{EINVAL};`,
    'for (split /\\n/, $plan) {',
    '  my ($k, $make, @p) = split / /;',
    '  @p = map { pack("H*", $_) } @p;',
    '  point($make, $k eq "T" ? $p[0] : $p[1]) if $k eq "B" || $k eq "O" || $k eq "T";',
    `  if ($k eq "B") { mount_bind($p[0], $p[1], ${MS_BIND | MS_REC}); }`,
    `  elsif ($k eq "O" && $tree) { mount_bind($p[0], $p[1], ${MS_BIND | MS_REC}); my $ro = pack("Q4", ${MOUNT_ATTR_RDONLY}, 0, 0, 0); syscall(${stage.mountSetattr}, ${AT_FDCWD}, $p[1], ${AT_RECURSIVE}, $ro, 32) == 0 or fail("read-only $p[1]"); }`,
    `  elsif ($k eq "O") { mount_bind($p[0], $p[1], ${MS_BIND}); readonly($p[1]); }`,
    `  elsif ($k eq "T") { syscall(${stage.mount}, $tmpfs, $p[0], $tmpfs, ${MS_NOSUID | MS_NODEV}, $p[1]) == 0 or fail("tmpfs $p[0]"); }`,
    `  elsif ($k eq "P") { syscall(${stage.mount}, $proc, $p[0], $proc, ${MS_NOSUID | MS_NODEV | MS_NOEXEC}, 0) == 0 or fail("proc $p[0]"); }`,
    '  elsif ($k eq "R") { readonly($p[0]); }',
    '  else { $! = 0; fail("a mount step of an unknown kind"); }',
    '}',
    'chdir($root) or fail("cd $root");',
    'my ($here, $old) = (".", ".");',
    `syscall(${stage.pivotRoot}, $here, $old) == 0 or fail("pivot_root");`,
    `syscall(${stage.umount2}, $here, ${MNT_DETACH}) == 0 or fail("umount");`,
    'put("/proc/sys/kernel/pid_max", "$pidmax\\n", "pid_max") if $pidmax ne "";',
    'my $cmd = fork() // fail("fork");',
    'if ($cmd != 0) {',
    '  my $w; do { $w = wait(); } until $w == $cmd || $w == -1;',
    '  syswrite($tell, ($w == $cmd ? $? : 125 << 8) . "\\n");',
    '  exit 0;',
    '}',
    'close($tell);',
    'chdir($cwd) or fail("cd $cwd");',
    'if ($nproc ne "") {',
    '  my $lim = pack("Q2", $nproc, $nproc);',
    `  syscall(${stage.setrlimit}, ${RLIMIT_NPROC}, $lim) == 0 or fail("process limit");`,
    '}',
    `for my $c (0..${CAP_CEILING}) { next if syscall(${prctl}, ${PR_CAPBSET_DROP}, $c, 0, 0, 0) == 0; last if $!{EINVAL} && $c > 0; fail("bounding set"); }`,
    `syscall(${prctl}, ${PR_CAP_AMBIENT}, ${PR_CAP_AMBIENT_CLEAR_ALL}, 0, 0, 0) == 0 or fail("ambient capabilities");`,
    `my ($hdr, $caps) = (pack("Li", ${LINUX_CAPABILITY_VERSION_3}, 0), pack("L6", 0, 0, 0, 0, 0, 0));`,
    `syscall(${stage.capset}, $hdr, $caps) == 0 or fail("capabilities");`,
    `syscall(${prctl}, ${PR_SET_NO_NEW_PRIVS}, 1, 0, 0, 0) == 0 or fail("no_new_privs");`,
    '$f = pack("H*", $f);',
    'my $p = pack("S x![J] J", length($f) / 8, unpack("J", pack("p", $f)));',
    `syscall(${prctl}, ${PR_SET_SECCOMP}, ${SECCOMP_MODE_FILTER}, $p, 0, 0) == 0 or fail("seccomp filter");`,
    'delete $ENV{PERL_BADLANG};',
    'exec { $ARGV[0] } @ARGV;',
    'print STDERR "cadre: cannot run $ARGV[0]: $!\\n"; exit 127;',
  ];
}

const hex = (s: string) => Buffer.from(s).toString('hex');
const MAKE: Readonly<Record<MakePoint, string>> = { none: '-', dir: 'd', file: 'f' };

/** The plan as the launcher reads it: a line per step, a letter, the mount point to make, hex paths. */
function planText(mounts: readonly LauncherMount[]): string {
  return mounts
    .map((m) => {
      switch (m.kind) {
        case 'bind':
          return `${m.readOnly ? 'O' : 'B'} ${MAKE[m.make]} ${hex(m.source)} ${hex(m.target)}`;
        case 'tmpfs':
          return `T ${MAKE[m.make]} ${hex(m.target)} ${hex(m.options)}`;
        case 'proc':
          return `P - ${hex(m.target)}`;
        case 'remount-ro':
          return `R - ${hex(m.target)}`;
      }
    })
    .join('\n');
}

const scripts = new Map<string, string>();

/** What the launcher reads from `FEED_FD` once the plan is made: its steps, then a line ".". */
export function unshareFeed(mounts: readonly LauncherMount[]): Buffer {
  return Buffer.from(`${planText(mounts)}\n.\n`);
}

/**
 * The argv that launches `command` in its own namespaces (spawn it with PERL_BADLANG=0; see
 * launch.ts). It starts before the plan exists: the namespaces are made while cadre plans, and the
 * namespace's first process reads the plan from `FEED_FD` before it mounts anything.
 */
export function unshareLauncher(req: LauncherRequest): string[] {
  const { filter } = req;
  let script = scripts.get(filter.arch);
  if (script === undefined) {
    script = [...outsideScript(filter), ...insideScript(filter)].join('\n');
    scripts.set(filter.arch, script);
  }
  return [
    req.perl,
    '-e',
    script,
    filter.bytes.toString('hex'),
    String(req.parentPid),
    req.cgroupProcs ?? '',
    String(req.uid),
    String(req.gid),
    req.root,
    req.cwd,
    req.pidMax === undefined ? '' : String(req.pidMax),
    req.nproc === undefined ? '' : String(req.nproc),
    ...req.command,
  ];
}
