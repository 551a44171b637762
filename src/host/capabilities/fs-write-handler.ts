// The fs.write capability of one run: the target resolved, the write judged with what the path
// alone does not tell (file-facts.ts), a person shown the diff when the policy asks, and the file
// replaced atomically (with the caller's mtime check, when it gives one).
import type { Capabilities } from '../../shared/capabilities.js';
import { detailOf, quoted, writePreview } from '../approvals/preview.js';
import { audited, authorize, parseRequest, type EffectContext } from './effect-context.js';
import { judgeContent, writeFacts } from './file-facts.js';
import { readText } from './fs/read.js';
import { writeAtomic } from './fs/write.js';
import { resolvePath, shownPath, type ResolvedPath } from './paths.js';

/** Largest current file a write's approval prompt diffs against. */
const PREVIEW_READ_BYTES = 1024 * 1024;

/**
 * The current text of a file a write would replace, for the approval's diff (undefined: a new
 * file). Read like the Read tool reads it: what Read would refuse to show (a private key under any
 * name, one of cadre's records) is not shown in a prompt either.
 */
async function currentText(ctx: EffectContext, target: ResolvedPath): Promise<string | undefined> {
  if (!target.exists) return undefined;
  const read = await readText(target.real, {
    maxBytes: PREVIEW_READ_BYTES,
    judgeHead: (head) => judgeContent(ctx, target, head),
  });
  return read.content;
}

/** The request's path and size as one audit line (the request is not parsed yet). */
function writeSummary(raw: unknown): string {
  const r = raw as { path?: unknown; content?: unknown } | null;
  return `${String(r?.path ?? '')} (${typeof r?.content === 'string' ? r.content.length : 0} chars)`;
}

/** The fs.write handler. */
export function writeHandler(ctx: EffectContext): Capabilities['fs.write'] {
  return (raw) =>
    audited(ctx, 'fs.write', writeSummary(raw), async (call) => {
      const req = parseRequest('fs.write', raw);
      const target = await resolvePath(req.path, ctx.projectDir);
      const shown = shownPath(target, ctx.projectDir);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.write', path: target, ...(await writeFacts(target, req.content)) },
        {
          action: `${target.exists ? 'edit' : 'create'} ${shown}`,
          summary: `write ${shown} (${req.content.length} chars)`,
          preview: async () => writePreview(shown, await currentText(ctx, target), req.content),
          detail: () => quoted(detailOf(req.content)),
        },
      );
      const value = await writeAtomic(
        target.real,
        req.content,
        req.expectedMtimeMs === undefined ? {} : { expectedMtimeMs: req.expectedMtimeMs },
      );
      return { value: { ...value, path: target.absolute }, reason };
    });
}
