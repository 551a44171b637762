// The unshare backend's last step inside the namespaces, in one perl process (perl-base is
// Essential on Debian and Ubuntu): pivot into the new root and detach the old one, cap the PID
// namespace's pid_max when asked, enter the command's directory, drop every capability (bounding,
// ambient, inheritable, permitted and effective sets), set no_new_privs, install the set-ID filter
// (seccomp-bpf.ts), and exec the command. One process rather than pivot_root, umount, setpriv and
// a loader in a row: each program started costs about a millisecond of the command's time, and a
// chain of them was most of what this backend costs over bwrap. Any step that fails stops the
// command before it starts (exit 125).
import type { SetidFilter } from './seccomp-bpf.js';

/** prctl options and constants (linux/prctl.h, linux/capability.h, linux/mount.h). */
const PR_SET_SECCOMP = 22;
const SECCOMP_MODE_FILTER = 2;
const PR_CAPBSET_DROP = 24;
const PR_SET_NO_NEW_PRIVS = 38;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4;
const MNT_DETACH = 2;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
/** Capability numbers tried; the first the kernel does not know (EINVAL) ends the bounding-set drop. */
const CAP_CEILING = 63;

/** The perl program; its arguments: the filter in hex, the working directory, pid_max or "", the command. */
function stageScript(filter: SetidFilter): string {
  const { prctl, stage } = filter;
  return [
    'my ($f, $cwd, $pidmax) = (pack("H*", shift @ARGV), shift @ARGV, shift @ARGV);',
    'sub fail { print STDERR "cadre: the sandbox could not be set up ($_[0]): $!\\n"; exit 125; }',
    // syscall passes a string as a pointer to its buffer, which must be a variable's (writable).
    'my ($here, $old) = (".", ".");',
    `syscall(${stage.pivotRoot}, $here, $old) == 0 or fail("pivot_root");`,
    `syscall(${stage.umount2}, $here, ${MNT_DETACH}) == 0 or fail("umount");`,
    'if ($pidmax ne "") {',
    '  open(my $h, ">", "/proc/sys/kernel/pid_max") or fail("pid_max");',
    '  print $h "$pidmax\\n" or fail("pid_max");',
    '  close($h) or fail("pid_max");',
    '}',
    'chdir($cwd) or fail("cd $cwd");',
    `for my $c (0..${CAP_CEILING}) { next if syscall(${prctl}, ${PR_CAPBSET_DROP}, $c, 0, 0, 0) == 0; last if $!{EINVAL} && $c > 0; fail("bounding set"); }`,
    `syscall(${prctl}, ${PR_CAP_AMBIENT}, ${PR_CAP_AMBIENT_CLEAR_ALL}, 0, 0, 0) == 0 or fail("ambient capabilities");`,
    `my ($hdr, $caps) = (pack("Li", ${LINUX_CAPABILITY_VERSION_3}, 0), pack("L6", 0, 0, 0, 0, 0, 0));`,
    `syscall(${stage.capset}, $hdr, $caps) == 0 or fail("capabilities");`,
    `syscall(${prctl}, ${PR_SET_NO_NEW_PRIVS}, 1, 0, 0, 0) == 0 or fail("no_new_privs");`,
    'my $p = pack("S x![J] J", length($f) / 8, unpack("J", pack("p", $f)));',
    `syscall(${prctl}, ${PR_SET_SECCOMP}, ${SECCOMP_MODE_FILTER}, $p, 0, 0) == 0 or fail("seccomp filter");`,
    'delete $ENV{PERL_BADLANG};',
    'exec { $ARGV[0] } @ARGV;',
    'print STDERR "cadre: cannot run $ARGV[0]: $!\\n"; exit 127;',
  ].join('\n');
}

/**
 * The argv that runs `command` through the stage, from the new root's directory as the current
 * one (the setup script's `cd`) while the namespace's root still holds every capability.
 */
export function unshareStage(
  perl: string,
  filter: SetidFilter,
  cwd: string,
  pidMax: number | undefined,
  command: readonly string[],
): string[] {
  return [
    perl,
    '-e',
    stageScript(filter),
    filter.bytes.toString('hex'),
    cwd,
    pidMax === undefined ? '' : String(pidMax),
    ...command,
  ];
}
