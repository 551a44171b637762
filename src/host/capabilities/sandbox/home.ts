// What of the home directory a command sees. The home directory inside is an empty, size-capped
// tmpfs; the toolchains and tool configuration commands need (a node or git installed there,
// ~/.gitconfig) are bound into it read-only, found by probing. Credential stores are never bound,
// and are hidden again wherever a wider allowance (sandbox.allowRead) would show them.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { isUnder } from '../policy/path-match.js';

/**
 * Home-relative credential stores: other tools' keys and tokens, other agents' tokens, and cadre's
 * own user data (config, agents). Hidden from commands wherever they would be visible.
 */
const HOME_CREDENTIALS: readonly string[] = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.netrc',
  '_netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.vault-token',
  '.terraform.d',
  '.config/op',
  '.password-store',
  '.local/share/keyrings',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.claude/.credentials.json',
  '.claude.json',
  '.codex/auth.json',
  '.config/anthropic',
  '.cadre',
];

/** Home-relative toolchains and caches that commands commonly need, bound read-only when present. */
const HOME_TOOLCHAINS: readonly string[] = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.asdf',
  '.local/share/mise',
  '.pyenv',
  '.rbenv',
  '.rustup',
  '.cargo',
  '.local/bin',
  '.local/lib',
  'go',
  '.bun',
  '.deno',
  '.sdkman',
  '.dotnet',
  '.npm',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper',
];

/** Home-relative tool configuration, bound read-only when present (directories, or files directly in home). */
const HOME_CONFIG: readonly string[] = [
  '.gitconfig',
  '.gitignore_global',
  '.config/git',
  '.editorconfig',
  '.tool-versions',
];

/** The directories of PATH that lie in `home`: a toolchain's `bin` brings its parent (its lib). */
export function pathEntriesInHome(pathVar: string, home: string): string[] {
  const out: string[] = [];
  for (const entry of pathVar.split(':')) {
    if (!path.isAbsolute(entry)) continue;
    const dir = path.normalize(entry).replace(/\/+$/, '');
    if (dir === home || !isUnder(dir, home)) continue;
    const parent = path.dirname(dir);
    // ~/.local holds other programs' data (keyrings, histories): only its bin directory counts.
    const wide = parent === home || parent === path.join(home, '.local');
    out.push(path.basename(dir) === 'bin' && !wide ? parent : dir);
  }
  return out;
}

const credentialPaths = new Map<string, string[]>();

/** The credential stores of `home`, absolute (computed once per home: scans ask per entry). */
function credentialsOf(home: string): string[] {
  let paths = credentialPaths.get(home);
  if (paths === undefined) {
    paths = HOME_CREDENTIALS.map((c) => path.join(home, c));
    credentialPaths.set(home, paths);
  }
  return paths;
}

/** True when `p` is a credential store or inside one. */
export function isCredential(p: string, home: string): boolean {
  return isUnder(p, home) && p !== home && credentialsOf(home).some((c) => isUnder(p, c));
}

/**
 * The home entries to bind read-only: toolchains, tool configuration and PATH directories that
 * exist, minus credential stores and anything inside them. Nested duplicates are dropped.
 */
export async function homeEntries(home: string, pathVar: string): Promise<string[]> {
  const candidates = [
    ...HOME_TOOLCHAINS.map((rel) => path.join(home, rel)),
    ...HOME_CONFIG.map((rel) => path.join(home, rel)),
    ...pathEntriesInHome(pathVar, home),
  ];
  // Synchronous: a few dozen fixed names, where the promise forms cost ten times more.
  const present = candidates.map((p) => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    return st !== undefined && (st.isDirectory() || st.isFile()) && !isCredential(p, home) ? p : undefined;
  });
  const kept = [...new Set(present.filter((p): p is string => p !== undefined))].sort();
  return kept.filter((p) => !kept.some((other) => other !== p && isUnder(p, other)));
}

/**
 * The credential stores under `root` that exist (to hide them when `root` is visible), by real
 * path: a mount over a symbolic link lands on its target, so the target is what gets hidden (and
 * callers drop targets that are not visible anyway).
 */
export function credentialsUnder(root: string, home: string): { path: string; dir: boolean }[] {
  const inside = HOME_CREDENTIALS.map((c) => path.join(home, c)).filter(
    (c) => isUnder(c, root) && c !== root,
  );
  // Synchronous, as in homeEntries: most of these do not exist, and a failed lstat costs a microsecond.
  const found = inside.map((p) => {
    if (lstatSync(p, { throwIfNoEntry: false }) === undefined) return undefined;
    let real: string;
    try {
      real = realpathSync.native(p);
    } catch {
      return undefined;
    }
    const st = statSync(real, { throwIfNoEntry: false });
    return st === undefined ? undefined : { path: real, dir: st.isDirectory() };
  });
  return found.filter((x): x is { path: string; dir: boolean } => x !== undefined);
}
