// Grep's batch, start to finish on a host I/O thread: resolve each requested path (realpath), or
// take where the walk that found it says it is, judge each with the one policy function
// (decideEach, the same pure code the event loop runs), and read only the allowed ones.
import path from 'node:path';
import { decide, decideEach } from '../policy.js';
import type { PolicyInput, ResolvedPath } from '../policy/types.js';
import { readBatchSync } from './read-batch-sync.js';
import { isPlainRelative, resolveManySync } from './resolve-sync.js';
import { sniffContent } from './sniff.js';

/** The rules and places a batch is judged under: the run's, as the event loop would pass them. */
export type JudgeContext = Pick<
  PolicyInput,
  'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules' | 'records' | 'protect'
>;

/** A judged batch: files read (packed) and skips, by index in the request. */
export interface JudgedBatch {
  /** Request index of each file read, ascending. */
  read: number[];
  /** Where file `k` ends in `bytes`; it starts where file `k - 1` ends (0 for the first). */
  ends: number[];
  mtimes: number[];
  bytes: Uint8Array;
  /** Denied by the policy or unreadable, with the reason. */
  skipped: { index: number; reason: string }[];
  /** Allowed but left for a later call by the byte budget, in order. */
  deferred: number[];
  /** How many paths the policy allowed. */
  allowed: number;
}

/**
 * Resolves `paths` against the project, judges each as `fs.readMany` under `ctx`, and reads the
 * allowed ones until `budget` bytes are read. Throws `invalid_input` as resolving does (a NUL byte,
 * a symlink loop).
 */
export function judgeReadSync(
  paths: readonly string[],
  ctx: JudgeContext,
  maxBytes: number,
  budget: number,
): JudgedBatch {
  return judgeAndRead(resolveManySync(paths, ctx.projectDir), ctx, maxBytes, budget);
}

/**
 * As `judgeReadSync`, for files a walk just found (walkGlob): `paths[i]` is what
 * fs.glob would have returned, `reals[i]` where the walk found it really is, so the policy sees the
 * resolved path `resolvePath(paths[i])` would give without resolving it again.
 */
export function judgeReadFoundSync(
  paths: readonly string[],
  reals: readonly string[],
  ctx: JudgeContext,
  maxBytes: number,
  budget: number,
): JudgedBatch {
  const base = path.resolve(ctx.projectDir);
  const prefix = base === '/' ? '/' : `${base}/`;
  const targets = paths.map((requested, i): ResolvedPath => ({
    requested,
    absolute: isPlainRelative(requested) ? prefix + requested : path.resolve(base, requested),
    real: reals[i] ?? '',
    exists: true,
  }));
  return judgeAndRead(targets, ctx, maxBytes, budget);
}

function judgeAndRead(
  targets: readonly ResolvedPath[],
  ctx: JudgeContext,
  maxBytes: number,
  budget: number,
): JudgedBatch {
  // Read rules and Grep rules both apply to what Grep reads; denied paths are skipped, never read.
  const verdicts = decideEach({ ...ctx, capability: 'fs.readMany', paths: targets });
  const allowed: number[] = [];
  const skipped: JudgedBatch['skipped'] = [];
  targets.forEach((_, i) => {
    const v = verdicts[i];
    if (v?.decision === 'allow') allowed.push(i);
    else skipped.push({ index: i, reason: v?.reason ?? 'not judged' });
  });
  // A file that begins with a private key (whatever its name) or is one of cadre's records is
  // judged again with what it holds; a refusal skips it like a denied path.
  const judgeHead = (k: number, head: Uint8Array): string | undefined => {
    const content = sniffContent(head);
    const target = targets[allowed[k] ?? -1];
    if (content === undefined || target === undefined) return undefined;
    const v = decide({ ...ctx, capability: 'fs.readMany', paths: [target], content });
    return v.decision === 'allow' ? undefined : v.reason;
  };
  const batch = readBatchSync(
    allowed.map((i) => targets[i]?.real ?? ''),
    maxBytes,
    budget,
    judgeHead,
  );
  const requestIndex = (k: number) => allowed[k] ?? -1;
  for (const s of batch.skipped) skipped.push({ index: requestIndex(s.index), reason: s.reason });
  return {
    read: batch.read.map(requestIndex),
    ends: batch.ends,
    mtimes: batch.mtimes,
    bytes: batch.bytes,
    skipped,
    deferred: allowed.slice(batch.handled),
    allowed: allowed.length,
  };
}
