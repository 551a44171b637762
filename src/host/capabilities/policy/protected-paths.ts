// The one list of paths inside a project that make the host run code later or hold the state of
// cadre and other agent tooling. The file tools' policy asks before writing any of them, in every
// mode; the command sandbox mounts them read-only. Both read this list, so they cannot drift.

/**
 * Project-relative paths, always protected. A directory entry covers everything below it. The file
 * tools also protect the whole of `.git/` (nothing a model does needs to write git's internals
 * directly); commands may write `.git/` (to commit) except the entries listed here.
 */
export const PROTECTED_PATHS: readonly string[] = [
  '.git/hooks',
  '.git/config',
  '.git/info',
  // Submodules' and linked worktrees' own hooks and config, and per-worktree config: git runs
  // them on the host as it runs .git/hooks.
  '.git/modules',
  '.git/worktrees',
  '.git/config.worktree',
  // Names another directory whose config and hooks git then uses instead of .git's own.
  '.git/commondir',
  '.gitmodules',
  '.husky',
  '.vscode',
  '.idea',
  '.envrc',
  '.pre-commit-config.yaml',
  '.mcp.json',
  '.claude',
  '.cadre',
  // Package-manager and editor configuration that runs code on the next `npm`/`yarn`/`pnpm` command
  // (node-options, yarnPath, pnpmfile hooks) or when the folder is opened (devcontainer commands).
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  '.devcontainer',
];

/** The protected list with user additions (config `sandbox.protect`), normalised and deduplicated. */
export function protectedPaths(extra: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const entry of [...PROTECTED_PATHS, ...extra]) {
    const norm = entry
      .replace(/\\/g, '/')
      .replace(/^\.\/+/, '')
      .replace(/\/+$/, '');
    if (norm !== '' && !norm.startsWith('/') && !norm.split('/').includes('..')) out.add(norm);
  }
  return [...out];
}
