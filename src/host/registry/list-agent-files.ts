// Lists the `*.md` files of an agents directory and its subfolders, as Claude Code scans
// `.claude/agents/` recursively: projects and collections keep agents in folders, and an agent's
// identity comes from its `name`, not its place. Hidden folders and `node_modules` are not
// entered; a symlinked folder is followed once (a loop ends where it starts); depth and count are
// capped so a stray link to `/` cannot make a CLI start walk the disk.
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RegistryIssue } from '../../shared/agent-definition.js';

/** One agent file found: its absolute path, its path below the listed directory, and whether it is a plain file. */
export interface FoundFile {
  path: string;
  relativePath: string;
  /** True for a regular file; false for a symlink (it may point at anything and is checked when read). */
  regular: boolean;
}

/** Deepest folder level entered below the agents directory. */
const MAX_AGENT_DIR_DEPTH = 8;
/** Most agent files one directory tree yields. */
const MAX_AGENT_FILES = 10_000;
/** Most folder entries looked at in one tree (a symlink to `/` must not make every start walk the disk). */
export const MAX_AGENT_DIR_ENTRIES = 50_000;

/**
 * The `*.md` files under `dir`, sorted by relative path (`/`-separated). A missing directory is an
 * empty list; an unreadable folder, too deep a tree or too many files are issues.
 */
export async function listAgentFiles(dir: string): Promise<{ files: FoundFile[]; errors: RegistryIssue[] }> {
  const files: FoundFile[] = [];
  const errors: RegistryIssue[] = [];
  const seen = new Set<string>();
  const root = await realpath(dir).catch(() => dir);
  seen.add(root);
  let entriesSeen = 0;
  let stopped = false;

  const walk = async (abs: string, rel: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(abs, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (depth === 0 && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      errors.push({ path: abs, message: `cannot list agents directory: ${(error as Error).message}` });
      return;
    }
    entriesSeen += entries.length;
    if (entriesSeen > MAX_AGENT_DIR_ENTRIES) {
      if (!stopped)
        errors.push({
          path: abs,
          message: `more than ${MAX_AGENT_DIR_ENTRIES} entries under ${dir} (a link to a large folder?); the walk stopped here`,
        });
      stopped = true;
      return;
    }
    const folders: [string, string][] = [];
    for (const entry of entries) {
      const childAbs = path.join(abs, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const isMd = entry.name.toLowerCase().endsWith('.md');
      if (entry.isFile()) {
        if (isMd) files.push({ path: childAbs, relativePath: childRel, regular: true });
      } else if (entry.isDirectory()) {
        if (enterable(entry.name)) folders.push([childAbs, childRel]);
      } else if (entry.isSymbolicLink()) {
        const target = await stat(childAbs).catch(() => undefined);
        if (target?.isDirectory()) {
          if (enterable(entry.name)) folders.push([childAbs, childRel]);
        } else if (isMd) files.push({ path: childAbs, relativePath: childRel, regular: false });
      }
    }
    for (const [childAbs, childRel] of folders) {
      if (files.length > MAX_AGENT_FILES || stopped) return;
      const real = await realpath(childAbs).catch(() => childAbs);
      if (seen.has(real)) continue;
      seen.add(real);
      if (depth + 1 > MAX_AGENT_DIR_DEPTH) {
        errors.push({
          path: childAbs,
          message: `folder is more than ${MAX_AGENT_DIR_DEPTH} levels below ${dir}; its agents were not loaded`,
        });
        continue;
      }
      await walk(childAbs, childRel, depth + 1);
    }
  };
  await walk(dir, '', 0);

  files.sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
  if (files.length > MAX_AGENT_FILES) {
    errors.push({
      path: dir,
      message: `more than ${MAX_AGENT_FILES} agent files; only the first ${MAX_AGENT_FILES} by path were loaded`,
    });
    files.length = MAX_AGENT_FILES;
  }
  return { files, errors };
}

// Hidden folders (`.git` of a collection checked out in place) and dependencies hold no agents.
function enterable(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules';
}
