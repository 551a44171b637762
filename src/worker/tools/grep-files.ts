// The files Grep searches, fetched from the host: one fs.readMany with a glob walks, judges and
// reads in one pass; what did not fit its byte budget (or a file named by path) is then read by
// name in chunks, the next ones requested before the current one is searched.
import type { FsReadManyResult } from '../../shared/capabilities.js';
import type * as z from 'zod';
import type { GrepInput } from '../../shared/tools.js';
import { callCapability, capabilityFailure } from './call-capability.js';
import { matchesType, typeSearchGlob } from './grep-types.js';
import type { ToolContext, ToolResult } from './tool.js';
import { toolError } from './tool.js';

/** Files read per fs.readMany call: few round trips, bounded memory per step. */
export const GREP_READ_CHUNK = 200;
/** Chunks requested ahead of the one being searched. */
const GREP_READ_AHEAD = 3;

/** The first batch read (with its files' contents), and the files left to read by name. */
export type Candidates =
  | {
      ok: true;
      first: FsReadManyResult | undefined;
      files: string[];
      truncated: boolean;
      /** What the host's walk said (a .gitignore too big to use whole, a walk out of time). */
      notices: string[];
    }
  | { ok: false; result: ToolResult };

/** A glob without `/` matches base names at any depth, as ripgrep's --glob does. */
function recursiveGlob(glob: string): string {
  return glob.includes('/') ? glob : `**/${glob}`;
}

/** Finds the files to search under `input.path` (or the named file), reading the first batch. */
export async function listCandidates(
  ctx: ToolContext,
  input: Pick<z.infer<typeof GrepInput>, 'path' | 'glob'>,
  typeGlobs?: readonly string[],
): Promise<Candidates> {
  const { path, glob } = input;
  if (path !== undefined) {
    const stat = await callCapability(ctx, 'fs.stat', { path });
    if (!stat.ok) return { ok: false, result: capabilityFailure(stat.error) };
    if (!stat.value.exists || stat.value.type === 'missing') {
      return { ok: false, result: toolError(`not_found: path ${path} does not exist.`) };
    }
    // An explicitly named file is searched whatever glob and type say, as ripgrep does.
    if (stat.value.type === 'file')
      return { ok: true, first: undefined, files: [path], truncated: false, notices: [] };
  }
  const pattern = glob !== undefined ? recursiveGlob(glob) : typeGlobs ? typeSearchGlob(typeGlobs) : '**/*';
  const limit = ctx.limits.maxGrepFiles;
  // One call: the host walks, judges and reads in one pass, in path order (files_with_matches is
  // put newest first from the reads' mtimes); what did not fit in its byte budget comes back by name.
  const first = await callCapability(ctx, 'fs.readMany', {
    paths: [],
    glob: path === undefined ? { pattern, limit } : { pattern, path, limit },
    packed: true,
  });
  if (!first.ok) return { ok: false, result: capabilityFailure(first.error) };
  const rest = first.value.deferred ?? [];
  const files = typeGlobs ? rest.filter((f) => matchesType(f, typeGlobs)) : rest;
  return {
    ok: true,
    first: first.value,
    files,
    truncated: first.value.truncated ?? false,
    notices: first.value.notices ?? [],
  };
}

/**
 * Reads `files` by name and hands each batch to `consume` until it returns true or every file is
 * read. Returns an error result when a read fails or the run stops, otherwise undefined.
 */
export async function readByName(
  ctx: ToolContext,
  files: readonly string[],
  consume: (batch: FsReadManyResult) => boolean,
): Promise<ToolResult | undefined> {
  const read = (start: number) => {
    if (start >= files.length) return undefined;
    const pending = callCapability(ctx, 'fs.readMany', {
      paths: files.slice(start, start + GREP_READ_CHUNK),
      packed: true,
    });
    // A search that stops early leaves the last request unread; its failure is nobody's concern.
    pending.catch(() => undefined);
    return pending;
  };
  const ahead = Array.from({ length: GREP_READ_AHEAD }, (_, i) => read(i * GREP_READ_CHUNK));
  for (let start = 0; start < files.length; start += GREP_READ_CHUNK) {
    if (ctx.signal?.aborted) return toolError('cancelled: the search was cancelled.');
    let batch = await ahead.shift()!;
    ahead.push(read(start + GREP_READ_AHEAD * GREP_READ_CHUNK));
    // A batch holds a bounded number of bytes; what did not fit (the tail) is asked for again.
    for (;;) {
      if (!batch.ok) return capabilityFailure(batch.error);
      if (consume(batch.value)) return undefined;
      const rest = batch.value.deferred ?? [];
      if (rest.length === 0) break;
      batch = await callCapability(ctx, 'fs.readMany', { paths: rest, packed: true });
    }
  }
  return undefined;
}
