// The fs.readMany capability of one run: many files in one call, either a list of paths or the
// files a glob finds. Every file is judged by the policy before any of it is read (on the I/O
// threads); denied ones come back as skipped with the reason, never read.
import type * as z from 'zod';
import type { Capabilities, FsReadManyResult } from '../../shared/capabilities.js';
import {
  audited,
  authorize,
  judgeContext,
  parseRequest,
  type CallAudit,
  type EffectContext,
} from './effect-context.js';
import { noticeSecrets } from './file-facts.js';
import { globRead } from './fs/glob-read.js';
import { judgeReadMany } from './fs/read-many.js';
import { resolvePath } from './paths.js';
import type { CapabilityRequests } from './requests.js';

type ReadManyGlob = NonNullable<z.infer<(typeof CapabilityRequests)['fs.readMany']>['glob']>;

/** How each file is read, as the request asks. */
interface ReadManyOptions {
  maxBytesPerFile?: number;
  packed?: boolean;
}

/** The request's shape as one audit line (the request is not parsed yet). */
function readManySummary(raw: unknown): string {
  const r = raw as { paths?: unknown[]; glob?: { pattern?: unknown } } | null;
  return r?.glob !== undefined
    ? `glob ${String(r.glob?.pattern ?? '')}`
    : `${String(r?.paths?.length ?? 0)} files`;
}

/** The fs.readMany handler. */
export function readManyHandler(ctx: EffectContext): Capabilities['fs.readMany'] {
  return (raw) =>
    audited(ctx, 'fs.readMany', readManySummary(raw), async (call) => {
      const req = parseRequest('fs.readMany', raw);
      const options: ReadManyOptions = {
        ...(req.maxBytesPerFile ? { maxBytesPerFile: req.maxBytesPerFile } : {}),
        ...(req.packed ? { packed: true } : {}),
      };
      if (req.glob !== undefined) return readGlob(ctx, call, req.glob, options);
      // Resolved, judged path by path (denied ones are skipped, never read) and read on an I/O
      // thread, with the run's rules; as fs.readMany, Read rules and Grep rules both apply.
      const { result, allowed } = await judgeReadMany(req.paths, judgeContext(ctx), options);
      noticeSecrets(ctx, result.skipped);
      return { value: result, reason: `${allowed} of ${req.paths.length} paths allowed` };
    });
}

/**
 * The glob form. The walk is judged as the fs.glob call it replaces (its directory and pattern),
 * then every file it finds as fs.readMany, on the I/O threads, before any of it is read.
 */
async function readGlob(
  ctx: EffectContext,
  call: CallAudit,
  request: ReadManyGlob,
  options: ReadManyOptions,
): Promise<{ value: FsReadManyResult; reason: string }> {
  const { pattern, path, limit } = request;
  const target = await resolvePath(path ?? '.', ctx.projectDir);
  const reason = await authorize(
    ctx,
    call,
    { capability: 'fs.glob', path: target, pattern },
    { action: `search ${path ?? '.'}`, summary: `glob ${pattern}` },
  );
  const walk = {
    projectDir: ctx.projectDir,
    roots: [ctx.projectDir, ...ctx.extraRoots],
    hidden: ctx.records,
    sort: 'path' as const,
    ...(limit ? { limit } : {}),
  };
  const { result, found, allowed } = await globRead(target.real, pattern, walk, judgeContext(ctx), {
    ...options,
    signal: ctx.signal,
  });
  noticeSecrets(ctx, result.skipped);
  return { value: result, reason: `${reason}; ${allowed} of ${found} files found allowed` };
}
