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
  // Other agents' and editors' configuration that starts programs when the project is opened in
  // them: MCP servers (Cursor, Gemini CLI), Continue's and opencode's whole directories (their
  // config, tools and plugins).
  '.cursor/mcp.json',
  '.gemini/settings.json',
  '.continue',
  // opencode loads every plugin in `.opencode/plugins/` at start, and its project config
  // (`opencode.json`, `opencode.jsonc`, also under `.opencode/`) names plugins and MCP servers.
  '.opencode',
  'opencode.json',
  'opencode.jsonc',
  // Shell startup files: they run in every new shell, which matters when the project is a home
  // directory (cadre run from ~).
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
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

/** A list split for matching: entries by their first segment, and a test most paths fail at once. */
interface ProtectedIndex {
  byFirst: Map<string, { entry: string; segs: string[] }[]>;
  maybe: RegExp;
}

/** Each list indexed once (the policy passes the same array for the same additions). */
const indexes = new WeakMap<readonly string[], ProtectedIndex>();

function indexOf(list: readonly string[]): ProtectedIndex {
  let index = indexes.get(list);
  if (!index) {
    const byFirst = new Map<string, { entry: string; segs: string[] }[]>();
    for (const entry of list) {
      const segs = entry.toLowerCase().split('/');
      const first = segs[0] ?? '';
      byFirst.set(first, [...(byFirst.get(first) ?? []), { entry, segs }]);
    }
    const firsts = [...byFirst.keys()].map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    index = { byFirst, maybe: new RegExp(`(^|/)(${firsts.join('|')})(/|$)`) };
    indexes.set(list, index);
  }
  return index;
}

/**
 * The entry of `list` that the root-relative path `rel` is in or under, and the index of the
 * segment where it starts. An entry matches at any depth, case-insensitively: `.husky` protects
 * `pkg/.husky/pre-commit` too, and `.HUSKY` is the same directory on a case-insensitive disk.
 */
export function protectedEntry(
  rel: string,
  list: readonly string[],
): { entry: string; at: number; length: number } | undefined {
  if (rel === '') return undefined;
  const index = indexOf(list);
  const lower = rel.toLowerCase();
  if (!index.maybe.test(lower)) return undefined;
  const segs = lower.split('/');
  for (let i = 0; i < segs.length; i++) {
    for (const { entry, segs: parts } of index.byFirst.get(segs[i] as string) ?? []) {
      if (i + parts.length <= segs.length && parts.every((seg, k) => segs[i + k] === seg))
        return { entry, at: i, length: parts.length };
    }
  }
  return undefined;
}
