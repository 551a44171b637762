// Why no sandbox works on this machine, and the exact fix: install bubblewrap (or perl, which the
// unshare backend's seccomp filter needs), lift Ubuntu's AppArmor restriction on user namespaces,
// enable user namespaces, or start the container with a seccomp profile that allows them. Always ends with the one opt-out, and what it costs.
import { access, readFile } from 'node:fs/promises';
import type { BackendAttempt } from './types.js';

/** Facts about the machine that explain a failed probe. */
export interface HostFacts {
  /** /proc/sys/kernel/apparmor_restrict_unprivileged_userns (Ubuntu 23.10+). */
  apparmorRestricted: boolean;
  /** /proc/sys/kernel/unprivileged_userns_clone is 0 (older Debian kernels). */
  unprivilegedCloneOff: boolean;
  /** /proc/sys/user/max_user_namespaces is 0. */
  maxUserNamespacesZero: boolean;
  /** Running in a container (/.dockerenv, or a container runtime in /proc/1/cgroup). */
  container: boolean;
  uid: number;
}

async function sysctl(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').then(
    (t) => t.trim(),
    () => undefined,
  );
}

/** Reads the facts. */
export async function hostFacts(uid: number): Promise<HostFacts> {
  const [apparmor, clone, maxNs, cgroup, dockerenv] = await Promise.all([
    sysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    sysctl('/proc/sys/kernel/unprivileged_userns_clone'),
    sysctl('/proc/sys/user/max_user_namespaces'),
    sysctl('/proc/1/cgroup'),
    access('/.dockerenv').then(
      () => true,
      () => false,
    ),
  ]);
  return {
    apparmorRestricted: apparmor === '1',
    unprivilegedCloneOff: clone === '0',
    maxUserNamespacesZero: maxNs === '0',
    container: dockerenv || /docker|containerd|kubepods|libpod/.test(cgroup ?? ''),
    uid,
  };
}

/** The opt-out, stated the same way everywhere. */
const OPT_OUT =
  'To run commands without any isolation instead, put "sandbox": "off" in ~/.cadre/config.json (a project\'s own config cannot turn the sandbox off); cadre then warns on every run and every command result says so.';

/** The fix for a machine where neither backend works, most likely cause first. */
export function sandboxFix(facts: HostFacts, attempts: readonly BackendAttempt[]): string {
  const lines: string[] = [];
  const bwrapMissing = attempts.some((a) => a.backend === 'bwrap' && a.binary === undefined);
  if (bwrapMissing)
    lines.push(
      'Install bubblewrap: apt-get install bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch).',
    );
  if (attempts.some((a) => /no syscall table for/.test(a.detail)))
    lines.push(
      `cadre's seccomp filter, which every sandboxed command runs under so that it cannot leave a set-user-ID file behind, covers x86_64 and aarch64 only (this machine is ${process.arch}).`,
    );
  else if (attempts.some((a) => a.backend === 'unshare' && /\bperl\b/.test(a.detail)))
    lines.push(
      'The unshare backend installs its seccomp filter with perl: apt-get install perl-base (Debian, Ubuntu), or install bubblewrap, which needs no perl.',
    );
  if (facts.apparmorRestricted && facts.uid !== 0)
    lines.push(
      'Ubuntu 24.04+ restricts unprivileged user namespaces with AppArmor. Allow bwrap to create them with a profile: write /etc/apparmor.d/bwrap containing\n' +
        '  abi <abi/4.0>,\n  include <tunables/global>\n  profile bwrap /usr/bin/bwrap flags=(unconfined) {\n    userns,\n  }\n' +
        'then run: sudo apparmor_parser -r /etc/apparmor.d/bwrap (or lift the restriction for all programs: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0).',
    );
  if (facts.unprivilegedCloneOff)
    lines.push(
      'User namespaces are disabled for unprivileged users: sudo sysctl -w kernel.unprivileged_userns_clone=1',
    );
  if (facts.maxUserNamespacesZero)
    lines.push(
      'User namespaces are disabled (user.max_user_namespaces is 0): sudo sysctl -w user.max_user_namespaces=15000',
    );
  if (facts.container)
    lines.push(
      'In Docker, the default seccomp profile blocks the namespaces a sandbox needs: start the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined (or a seccomp profile that allows unshare, clone with CLONE_NEWUSER, mount and pivot_root), or run cadre on the host.',
    );
  if (lines.length === 0)
    lines.push(
      'User namespaces do not work for this user here; `cadre doctor` shows what each backend reported.',
    );
  lines.push(OPT_OUT);
  return lines.join('\n');
}
