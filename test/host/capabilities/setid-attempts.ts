// Every way a command can try to leave a set-user-ID or set-group-ID file in the project, and the
// ordinary mode changes that must keep working, as shell text a test runs in a sandbox (or, to
// prove the attempts are real, outside one). Shared by the sandbox's own tests and the CLI's.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** One attempt: the file it targets (project-relative) and the commands that try. */
export interface SetidAttempt {
  name: string;
  file: string;
  command: string;
}

const PY = '/usr/bin/python3';
const hasPython = existsSync(PY);
/** A set-user-ID program of the system to copy with `cp -p`, when the system has one. */
const SUID_SOURCE = ['/usr/bin/passwd', '/usr/bin/su', '/bin/su'].find(
  (p) => existsSync(p) && (statSync(p).mode & 0o4000) !== 0,
);

/** The attempts; those needing python3 or a set-user-ID system program only where they exist. */
export const SETID_ATTEMPTS: readonly SetidAttempt[] = [
  { name: 'chmod 4755', file: 's-chmod', command: 'cp /usr/bin/env s-chmod; chmod 4755 s-chmod' },
  { name: 'chmod 6755', file: 's-chmod6', command: 'cp /usr/bin/env s-chmod6; chmod 6755 s-chmod6' },
  { name: 'chmod u+s', file: 's-us', command: 'cp /usr/bin/env s-us; chmod u+s s-us' },
  { name: 'chmod g+s', file: 's-gs', command: 'cp /usr/bin/env s-gs; chmod g+s s-gs' },
  { name: 'install -m 4755', file: 's-install', command: 'install -m 4755 /usr/bin/env s-install' },
  { name: 'install -m 2755', file: 's-install2', command: 'install -m 2755 /usr/bin/env s-install2' },
  {
    name: 'find -exec chmod',
    file: 'sub/s-find',
    command: 'mkdir -p sub; cp /usr/bin/env sub/s-find; find sub -name s-find -exec chmod 4755 {} +',
  },
  {
    name: 'perl sysopen O_CREAT 04755',
    file: 's-sysopen',
    command: `perl -e 'sysopen(F, "s-sysopen", 0101, 04755) or die "sysopen: $!\\n"'`,
  },
  {
    name: 'perl chmod',
    file: 's-perl',
    command: `: > s-perl; perl -e 'chmod(04755, "s-perl") or die "$!\\n"'`,
  },
  {
    name: 'tar -x of a 4755 entry',
    file: 'untar/s-tar',
    command: 'mkdir -p untar && tar -xpf setid.tar -C untar',
  },
  ...(SUID_SOURCE === undefined
    ? []
    : [{ name: `cp -p ${SUID_SOURCE}`, file: 's-cp-p', command: `cp -p ${SUID_SOURCE} s-cp-p` }]),
  ...(hasPython
    ? [
        {
          name: 'python os.open O_CREAT 04755',
          file: 's-pyopen',
          command: `${PY} -c 'import os; os.open("s-pyopen", os.O_CREAT | os.O_WRONLY, 0o4755)'`,
        },
        {
          name: 'python mknod S_IFREG|04755',
          file: 's-mknod',
          command: `${PY} -c 'import os, stat; os.mknod("s-mknod", stat.S_IFREG | 0o4755)'`,
        },
        {
          name: 'python O_TMPFILE 04755 then linked',
          file: 's-tmpfile',
          // linkat with AT_SYMLINK_FOLLOW (0x400): os.link would link /proc's symbolic link itself.
          command: `${PY} -c 'import os, ctypes; fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755); l = ctypes.CDLL(None, use_errno=True); assert l.linkat(-100, f"/proc/self/fd/{fd}".encode(), -100, b"s-tmpfile", 0x400) == 0'`,
        },
      ]
    : []),
];

/** Writes `setid.tar` in `dir`: one entry, untar/s-tar's name without the directory, mode 4755. */
export function makeSetidTar(dir: string): void {
  execFileSync(
    '/bin/sh',
    ['-c', 'cp /usr/bin/env s-tar && tar --mode=4755 -cf setid.tar s-tar && rm s-tar'],
    {
      cwd: dir,
    },
  );
}

/** All attempts as one command; each line of output names an attempt and its exit code. */
export function attemptsCommand(): string {
  return SETID_ATTEMPTS.map((a) => `(${a.command}) 2>/dev/null; echo "attempt ${a.name}: $?"`).join('\n');
}

/**
 * Ordinary changes that must still work, each printing `ok <name>` when it did: chmod 755, +x and
 * -R u+w, mkdir -p, git init, npm-like files (a bin link made executable), cp -p and tar of
 * ordinary files, and a plain open of an existing file.
 */
export const ORDINARY = [
  ': > o-755 && chmod 755 o-755 && [ -x o-755 ] && echo "ok chmod 755"',
  ': > o-x && chmod +x o-x && [ -x o-x ] && echo "ok chmod +x"',
  'mkdir -p o-tree/a/b && : > o-tree/a/b/f && chmod -R u+w o-tree && echo "ok chmod -R u+w"',
  'mkdir -p o-deep/x/y/z && [ -d o-deep/x/y/z ] && echo "ok mkdir -p"',
  'git init -q o-repo && [ -d o-repo/.git/objects ] && echo "ok git init"',
  'mkdir -p node_modules/pkg/bin node_modules/.bin && echo "#!/bin/sh" > node_modules/pkg/bin/cli.js && chmod 755 node_modules/pkg/bin/cli.js && ln -sf ../pkg/bin/cli.js node_modules/.bin/cli && [ -x node_modules/.bin/cli ] && echo "ok npm-like"',
  'cp -p o-755 o-cp && [ -x o-cp ] && echo "ok cp -p"',
  'tar -cf o.tar o-755 && mkdir -p o-untar && tar -xpf o.tar -C o-untar && [ -x o-untar/o-755 ] && echo "ok tar"',
  'cat o-755 > /dev/null && echo "ok open"',
  'install -m 755 /usr/bin/env o-install && echo "ok install -m 755"',
].join('\n');

/** The ordinary changes' names, as ORDINARY prints them. */
export const ORDINARY_NAMES = [...ORDINARY.matchAll(/echo "ok ([^"]+)"/g)].map((m) => m[1] ?? '');

/** Every file or directory under `dir` with S_ISUID or S_ISGID (project-relative, with its mode). */
export function setidFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(dir, rel))) {
    const r = rel === '' ? name : `${rel}/${name}`;
    const st = lstatSync(path.join(dir, r));
    if ((st.mode & 0o6000) !== 0) out.push(`${r} ${(st.mode & 0o7777).toString(8)}`);
    if (st.isDirectory()) out.push(...setidFiles(dir, r));
  }
  return out;
}
