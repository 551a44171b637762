// The path-judged read capabilities of one run: fs.read, fs.stat, fs.list and fs.glob. Each parses
// the worker's request, resolves its path (realpath), passes the one authorization step
// (effect-context.ts) and only then touches the file system.
import type { Capabilities } from '../../shared/capabilities.js';
import { audited, authorize, parseRequest, type EffectContext } from './effect-context.js';
import { judgeContent } from './file-facts.js';
import { glob } from './fs/glob.js';
import { list } from './fs/list.js';
import { readText } from './fs/read.js';
import { stat } from './fs/stat.js';
import { resolvePath, shownPath } from './paths.js';

/** The request's `path` field as an audit summary (the request is not parsed yet). */
function pathSummary(raw: unknown): string {
  return String((raw as { path?: unknown } | null)?.path ?? '');
}

/** The fs.read handler: a file's text, judged by its path and then by its first bytes. */
export function readHandler(ctx: EffectContext): Capabilities['fs.read'] {
  return (raw) =>
    audited(ctx, 'fs.read', pathSummary(raw), async (call) => {
      const req = parseRequest('fs.read', raw);
      const target = await resolvePath(req.path, ctx.projectDir);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.read', path: target },
        {
          action: `read ${shownPath(target, ctx.projectDir)}`,
          summary: `read ${shownPath(target, ctx.projectDir)}`,
        },
      );
      const value = await readText(target.real, {
        ...(req.offset ? { offset: req.offset } : {}),
        ...(req.limit ? { limit: req.limit } : {}),
        judgeHead: (head) => judgeContent(ctx, target, head),
      });
      return { value: { ...value, path: target.absolute }, reason };
    });
}

/** The fs.stat handler. */
export function statHandler(ctx: EffectContext): Capabilities['fs.stat'] {
  return (raw) =>
    audited(ctx, 'fs.stat', pathSummary(raw), async (call) => {
      const req = parseRequest('fs.stat', raw);
      const target = await resolvePath(req.path, ctx.projectDir);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.stat', path: target },
        {
          action: `inspect ${shownPath(target, ctx.projectDir)}`,
          summary: `stat ${shownPath(target, ctx.projectDir)}`,
        },
      );
      return { value: { ...(await stat(target.real)), path: target.absolute }, reason };
    });
}

/** The fs.list handler: one directory, cadre's records left out. */
export function listHandler(ctx: EffectContext): Capabilities['fs.list'] {
  return (raw) =>
    audited(ctx, 'fs.list', pathSummary(raw), async (call) => {
      const req = parseRequest('fs.list', raw);
      const target = await resolvePath(req.path, ctx.projectDir);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.list', path: target },
        {
          action: `list ${shownPath(target, ctx.projectDir)}`,
          summary: `list ${shownPath(target, ctx.projectDir)}`,
        },
      );
      const listed = await list(target.real, req.ignore ?? [], undefined, ctx.records);
      return { value: { ...listed, path: target.absolute }, reason };
    });
}

/** The fs.glob handler: the walk is judged by its directory and pattern, and runs off the event loop. */
export function globHandler(ctx: EffectContext): Capabilities['fs.glob'] {
  return (raw) =>
    audited(ctx, 'fs.glob', String((raw as { pattern?: unknown } | null)?.pattern ?? ''), async (call) => {
      const req = parseRequest('fs.glob', raw);
      const target = await resolvePath(req.path ?? '.', ctx.projectDir);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.glob', path: target, pattern: req.pattern },
        { action: `search ${req.path ?? '.'}`, summary: `glob ${req.pattern}` },
      );
      const walk = {
        projectDir: ctx.projectDir,
        roots: [ctx.projectDir, ...ctx.extraRoots],
        hidden: ctx.records,
        ...(req.limit ? { limit: req.limit } : {}),
        ...(req.sort ? { sort: req.sort } : {}),
      };
      return { value: await glob(target.real, req.pattern, walk, ctx.signal), reason };
    });
}
