// The registry cache's file format, reading and writing. One file per agents directory: a line of
// JSON (the stamp, and per agent file its stat key and its parse without the prompt), then the
// prompts as raw UTF-8. A prompt is decoded only when something reads it (`agents show`, a run),
// so a start that lists 1,000 agents never decodes their 10 MB of prompts. Everything read is
// checked like any input from outside the process; a file that fails a check is not used at all.
import { constants } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import { AgentDefinition, type RegistryIssue } from '../../shared/agent-definition.js';
import type { ParsedAgent } from './build-definition.js';

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

const FORMAT = 2;
/** Largest cache file read: far above what 10,000 agent files need. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;

const Issue = z.object({
  path: z.string(),
  line: z.number().int().positive().optional(),
  field: z.string().optional(),
  message: z.string(),
});
const Span = z.tuple([z.number().int().min(0), z.number().int().min(0)]);
const StoredEntry = z.object({
  key: z.string(),
  agent: AgentDefinition.omit({ prompt: true }).optional(),
  /** Byte range of the prompt in the blob after the header line. */
  prompt: Span.optional(),
  name: z.string().optional(),
  errors: z.array(Issue),
  warnings: z.array(Issue),
});
type StoredEntry = z.infer<typeof StoredEntry>;
const Header = z.object({
  format: z.literal(FORMAT),
  stamp: z.string(),
  dir: z.string(),
  entries: z.record(z.string(), z.unknown()),
});

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
  const header = Header.safeParse(JSON.parse(bytes.toString('utf8', 0, newline)));
  if (!header.success) return undefined;
  const blob = bytes.subarray(newline + 1);
  const entries = new Map<string, CacheEntry>();
  for (const [rel, raw] of Object.entries(header.data.entries)) {
    const stored = StoredEntry.safeParse(raw);
    if (!stored.success) return undefined;
    const parsed = toParsed(stored.data, blob);
    if (parsed === undefined) return undefined;
    entries.set(rel, { key: stored.data.key, parsed });
  }
  return { stamp: header.data.stamp, dir: header.data.dir, entries };
}

function toParsed(stored: StoredEntry, blob: Buffer): ParsedAgent | undefined {
  // JSON holds no `undefined`, so zod's `field?: string | undefined` is RegistryIssue's `field?: string`.
  const out: ParsedAgent = {
    errors: stored.errors as RegistryIssue[],
    warnings: stored.warnings as RegistryIssue[],
  };
  if (stored.name !== undefined) out.name = stored.name;
  if (stored.agent === undefined) return out;
  const span = stored.prompt;
  if (span === undefined || span[0] > span[1] || span[1] > blob.length) return undefined;
  out.agent = withLazyPrompt(stored.agent, () => blob.toString('utf8', span[0], span[1]));
  return out;
}

/**
 * The definition with `prompt` decoded on first read. The property stays enumerable, so copies
 * and JSON see it; copying one (object spread) decodes it.
 */
export function withLazyPrompt<T extends object>(def: T, load: () => string): T & { prompt: string } {
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
    const stored: Record<string, unknown> = { key, errors: parsed.errors, warnings: parsed.warnings };
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
