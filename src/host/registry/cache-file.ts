// The registry cache's file format, reading and writing. One file per agents directory: a line of
// JSON (the stamp, and per agent file its stat key and its parse without the prompt), then the
// prompts as raw UTF-8. A prompt is decoded only when something reads it (`agents show`, a run),
// so a start that lists 1,000 agents never decodes their 10 MB of prompts. Everything read is
// checked like any input from outside the process (cached-definition.ts); a file that fails a check
// is not used at all.
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ParsedAgent } from './build-definition.js';
import { checkStoredDefinition, checkStoredIssues, storedIssues } from './cached-definition.js';

/** One cached parse: the file's stat key and what parsing it gave. */
export interface CacheEntry {
  key: string;
  parsed: ParsedAgent;
}

/** A cache file's content. */
export interface CacheContent {
  stamp: string;
  dir: string;
  /** By path relative to `dir`. */
  entries: Map<string, CacheEntry>;
}

const FORMAT = 3;
/** Largest cache file read: far above what 10,000 agent files need. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;

/** Reads `file` when it exists, belongs to this user, is writable by no one else and parses. */
export async function readCacheFile(file: string): Promise<CacheContent | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    const uid = process.getuid?.();
    if (!info.isFile() || info.size > MAX_CACHE_BYTES) return undefined;
    if ((uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0) return undefined;
    return decode(await handle.readFile());
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function decode(bytes: Buffer): CacheContent | undefined {
  const newline = bytes.indexOf(0x0a);
  if (newline === -1) return undefined;
  const header: unknown = JSON.parse(bytes.toString('utf8', 0, newline));
  if (typeof header !== 'object' || header === null) return undefined;
  const { format, stamp, dir, entries: raw } = header as Record<string, unknown>;
  if (format !== FORMAT || typeof stamp !== 'string' || typeof dir !== 'string') return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const blob = bytes.subarray(newline + 1);
  const entries = new Map<string, CacheEntry>();
  for (const [rel, stored] of Object.entries(raw as Record<string, unknown>)) {
    const entry = toEntry(
      stored,
      `${dir}${path.sep}${path.sep === '/' ? rel : rel.split('/').join(path.sep)}`,
      blob,
    );
    if (entry === undefined) return undefined;
    entries.set(rel, entry);
  }
  return { stamp, dir, entries };
}

function toEntry(stored: unknown, file: string, blob: Buffer): CacheEntry | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { key, name, agent, prompt, errors, warnings } = stored as Record<string, unknown>;
  const checkedErrors = checkStoredIssues(errors, file);
  const checkedWarnings = checkStoredIssues(warnings, file);
  if (typeof key !== 'string' || checkedErrors === undefined || checkedWarnings === undefined)
    return undefined;
  const parsed: ParsedAgent = { errors: checkedErrors, warnings: checkedWarnings };
  if (name !== undefined) {
    if (typeof name !== 'string') return undefined;
    parsed.name = name;
  }
  if (agent === undefined) return { key, parsed };
  const definition = checkStoredDefinition(agent);
  if (definition === undefined || !Array.isArray(prompt) || prompt.length !== 2) return undefined;
  const [from, to] = prompt as unknown[];
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return undefined;
  if ((from as number) < 0 || (from as number) > (to as number) || (to as number) > blob.length)
    return undefined;
  // The definition is a fresh object of this read: the prompt getter goes on it directly.
  parsed.agent = withLazyPrompt(definition, () => blob.toString('utf8', from as number, to as number));
  return { key, parsed };
}

/**
 * The definition with `prompt` decoded on first read. The property stays enumerable, so copies
 * and JSON see it; copying one (object spread) decodes it.
 */
function withLazyPrompt<T extends object>(def: T, load: () => string): T & { prompt: string } {
  Object.defineProperty(def, 'prompt', {
    enumerable: true,
    configurable: true,
    get(this: T) {
      const prompt = load();
      Object.defineProperty(this, 'prompt', {
        value: prompt,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return prompt;
    },
  });
  return def as T & { prompt: string };
}

/** Writes the cache atomically (a private temporary file renamed over it); failures are ignored. */
export async function writeCacheFile(file: string, cacheDir: string, content: CacheContent): Promise<void> {
  const prompts: Buffer[] = [];
  let offset = 0;
  const entries: Record<string, unknown> = {};
  for (const [rel, { key, parsed }] of content.entries) {
    const stored: Record<string, unknown> = {
      key,
      errors: storedIssues(parsed.errors),
      warnings: storedIssues(parsed.warnings),
    };
    if (parsed.name !== undefined) stored.name = parsed.name;
    if (parsed.agent !== undefined) {
      const { prompt, ...agent } = parsed.agent;
      const bytes = Buffer.from(prompt, 'utf8');
      stored.agent = agent;
      stored.prompt = [offset, offset + bytes.length];
      prompts.push(bytes);
      offset += bytes.length;
    }
    entries[rel] = stored;
  }
  const header = JSON.stringify({ format: FORMAT, stamp: content.stamp, dir: content.dir, entries });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    await writeFile(temp, Buffer.concat([Buffer.from(`${header}\n`, 'utf8'), ...prompts]), {
      mode: 0o600,
      flag: 'wx',
    });
    await rename(temp, file);
  } catch {
    // A read-only or full disk: the next start parses again, as without a cache.
    await rm(temp, { force: true }).catch(() => undefined);
  }
}
