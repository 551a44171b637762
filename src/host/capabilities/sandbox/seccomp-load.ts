// How each backend installs the set-ID filter (seccomp-bpf.ts) before the command runs. bwrap reads
// it from a file descriptor (`--seccomp FD`): the filter is written once per process to the
// sandbox's private directory, and the launcher opens it on that descriptor for each command.
// util-linux's setpriv cannot load a filter, so the unshare backend's launcher (unshare-launcher.ts)
// is perl (perl-base is Essential on Debian and Ubuntu), which calls prctl itself. `perlLoader` is
// that loader alone, outside any namespace: what bench/seccomp measures the filter with.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SetidFilter } from './seccomp-bpf.js';

/** The descriptor bwrap reads the filter from (the launcher's `3<` redirection). */
export const SECCOMP_FD = 3;

const files = new Map<string, string>();

/** The filter's file in the sandbox's private directory `dir`, written on first use. */
export function seccompFile(dir: string, filter: SetidFilter): string {
  let file = files.get(dir);
  if (file === undefined) {
    file = path.join(dir, `setid-${filter.arch}.bpf`);
    writeFileSync(file, filter.bytes, { mode: 0o400 });
    files.set(dir, file);
  }
  return file;
}

/**
 * The perl program that installs the filter given in hex as its first argument and execs the rest:
 * no_new_privs first (the kernel requires it of a process without CAP_SYS_ADMIN), then
 * PR_SET_SECCOMP with a struct sock_fprog { u16 len; pad; struct sock_filter *filter }.
 */
function loaderScript(prctl: number): string {
  return [
    'my $f = pack("H*", shift @ARGV);',
    'my $p = pack("S x![J] J", length($f) / 8, unpack("J", pack("p", $f)));',
    `if (syscall(${prctl}, 38, 1, 0, 0, 0) != 0 || syscall(${prctl}, 22, 2, $p, 0, 0) != 0) {`,
    '  print STDERR "cadre: the seccomp filter could not be installed: $!\\n"; exit 125; }',
    'delete $ENV{PERL_BADLANG};',
    'exec { $ARGV[0] } @ARGV;',
    'print STDERR "cadre: cannot run $ARGV[0]: $!\\n"; exit 127;',
  ].join('\n');
}

/** The argv prefix that runs what follows it under the filter, through `perl`. */
export function perlLoader(perl: string, filter: SetidFilter): string[] {
  return [perl, '-e', loaderScript(filter.prctl), filter.bytes.toString('hex')];
}
