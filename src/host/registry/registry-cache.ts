// The registry cache: what parsing each agent file gave, kept under the user's cache directory
// (`$XDG_CACHE_HOME/cadre` or `~/.cache/cadre`), one file per agents directory (cache-file.ts).
// An entry is used only for the exact version of the file it was made from (device, inode, size,
// modification and change times, below the millisecond) and the exact cadre build and parse defaults;
// anything else is parsed afresh. So a cache copied from another machine or checkout never
// matches, and a corrupt cache or one another user could write is ignored. A matching entry is
// trusted as the file's parse, so the directory is among cadre's records: no file tool reads or
// writes it and commands do not see it (runtime.ts passes it to openRecords).
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParsedAgent } from './build-definition.js';
import { type CacheEntry, readCacheFile, writeCacheFile } from './cache-file.js';
import { type FoundFile, listAgentFiles } from './list-agent-files.js';
import { type AgentFileRead, readFound } from './read-agent-files.js';

/** Where the cache lives and what it must match. */
export interface CacheSettings {
  /** The cache directory (`$XDG_CACHE_HOME/cadre`). */
  dir: string;
  /** cadre's version and build, and the parse defaults: a cache made under other ones is stale. */
  stamp: string;
}

/** One parsed file of a source, as the registry uses it. */
export interface SourceItem {
  path: string;
  relativePath: string;
  parsed: ParsedAgent;
}

/** The cache directory for `env` and `home`: `$XDG_CACHE_HOME/cadre`, else `~/.cache/cadre`. */
export function registryCacheDir(env: Record<string, string | undefined>, home: string): string {
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'cadre');
}

/**
 * Lists and parses the agent files under `dir` like readAgentFiles, taking each file's parse from
 * the cache when the file is unchanged, and writes the cache back when anything was parsed.
 */
export async function readSourceCached(
  dir: string,
  parse: (read: AgentFileRead) => ParsedAgent,
  settings: CacheSettings,
): Promise<{ items: SourceItem[]; errors: ParsedAgent['errors'] }> {
  const file = path.join(
    settings.dir,
    `agents-${createHash('sha256').update(dir).digest('hex').slice(0, 24)}`,
  );
  const [{ files, errors }, cached] = await Promise.all([listAgentFiles(dir), readCacheFile(file)]);
  const current =
    cached !== undefined && cached.stamp === settings.stamp && cached.dir === dir ? cached : undefined;
  const keys = files.map((f) => statKey(f.path));
  const items = new Array<SourceItem>(files.length);
  const misses: number[] = [];
  files.forEach((found, index) => {
    const entry = current?.entries.get(found.relativePath);
    if (entry !== undefined && entry.key === keys[index])
      items[index] = { path: found.path, relativePath: found.relativePath, parsed: entry.parsed };
    else misses.push(index);
  });
  const missed = misses.map((i) => files[i] as FoundFile);
  const parsed = await readFound(missed, parse);
  misses.forEach((fileIndex, i) => {
    const found = files[fileIndex] as FoundFile;
    items[fileIndex] = {
      path: found.path,
      relativePath: found.relativePath,
      parsed: parsed[i] as ParsedAgent,
    };
  });
  const stale = current === undefined ? files.length > 0 : current.entries.size !== files.length;
  if (misses.length > 0 || stale) {
    const entries = new Map<string, CacheEntry>();
    items.forEach((item, index) => {
      const key = keys[index];
      if (key !== undefined) entries.set(item.relativePath, { key, parsed: item.parsed });
    });
    await writeCacheFile(file, settings.dir, { stamp: settings.stamp, dir, entries });
  }
  return { items, errors };
}

/**
 * `dev:ino:size:mtime:ctime` (times in ms with their sub-millisecond part), undefined for a path
 * that is not a regular file. Synchronous on purpose: a stat opens nothing (a FIFO cannot block it),
 * and a thousand take about 1.5 ms this way against about 10 ms through the thread pool, on every
 * CLI start. (BigInt stats, for whole nanoseconds, cost five times as much.)
 */
function statKey(file: string): string | undefined {
  try {
    const s = statSync(file);
    return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The stamp of this build of cadre: its version, the size and time of the code running (a rebuild
 * of the same version changes them), and `extra` (the parse defaults).
 */
export async function buildStamp(extra: string): Promise<string> {
  const [pkg, code] = await Promise.all([
    readFile(new URL('../../../package.json', import.meta.url), 'utf8').catch(() => '{}'),
    stat(fileURLToPath(import.meta.url)).catch(() => undefined),
  ]);
  let version = 'unknown';
  try {
    const parsed = JSON.parse(pkg) as { version?: unknown };
    if (typeof parsed.version === 'string') version = parsed.version;
  } catch {
    // An unreadable package.json: the code file's stamp still tells builds apart.
  }
  return `${version}|${code ? `${code.size}:${code.mtimeMs}` : 'unknown'}|${os.platform()}|${extra}`;
}
