// The file and command capabilities of one run: parse the worker's request, resolve every path
// (realpath), ask the one policy function, wait for approval when it says `ask`, audit, and only
// then perform the effect (effect-context.ts holds that one path; file-facts.ts what a path alone
// does not tell).
import type { Capabilities } from '../../shared/capabilities.js';
import { CadreError } from '../../shared/errors.js';
import { detailOf, writePreview } from '../approvals/preview.js';
import { audited, authorize, judgeContext, parseRequest, type EffectContext } from './effect-context.js';
import { runCommand } from './exec.js';
import { judgeContent, noticeSecrets, writeFacts } from './file-facts.js';
import { glob } from './fs/glob.js';
import { list } from './fs/list.js';
import { globRead } from './fs/glob-read.js';
import type { JudgeContext } from './fs/judge-read-sync.js';
import { judgeReadMany } from './fs/read-many.js';
import { readText } from './fs/read.js';
import { stat } from './fs/stat.js';
import { writeAtomic } from './fs/write.js';
import { resolvePath, type ResolvedPath } from './paths.js';
import { loadShellGrammar } from './policy.js';

export { type EffectContext } from './effect-context.js';

type Handler<K extends keyof Capabilities> = Capabilities[K];

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

/** Builds the fs.* and exec.run handlers of one run. */
export function effectHandlers(ctx: EffectContext): Partial<Capabilities> {
  const resolve = (p: string): Promise<ResolvedPath> => resolvePath(p, ctx.projectDir);
  const roots = [ctx.projectDir, ...ctx.extraRoots];
  const read: Handler<'fs.read'> = (raw) => {
    const summary = String((raw as { path?: unknown })?.path ?? '');
    return audited(ctx, 'fs.read', summary, async (call) => {
      const req = parseRequest('fs.read', raw);
      const target = await resolve(req.path);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.read', path: target },
        { action: `read ${req.path}`, summary: `read ${req.path}` },
      );
      const value = await readText(target.real, {
        ...(req.offset ? { offset: req.offset } : {}),
        ...(req.limit ? { limit: req.limit } : {}),
        judgeHead: (head) => judgeContent(ctx, target, head),
      });
      return { value: { ...value, path: target.absolute }, reason };
    });
  };
  const judgeCtx = (): JudgeContext => judgeContext(ctx);
  const readManyHandler: Handler<'fs.readMany'> = (raw) => {
    const r = raw as { paths?: unknown[]; glob?: { pattern?: unknown } };
    const summary =
      r?.glob !== undefined
        ? `glob ${String(r.glob?.pattern ?? '')}`
        : `${String(r?.paths?.length ?? 0)} files`;
    return audited(ctx, 'fs.readMany', summary, async (call) => {
      const req = parseRequest('fs.readMany', raw);
      const options = {
        ...(req.maxBytesPerFile ? { maxBytesPerFile: req.maxBytesPerFile } : {}),
        ...(req.packed ? { packed: true } : {}),
      };
      if (req.glob !== undefined) {
        // The walk is judged as the fs.glob call it replaces (its directory and pattern), then every
        // file it finds as fs.readMany, on the I/O threads, before any of it is read.
        const { pattern, path, limit } = req.glob;
        const target = await resolve(path ?? '.');
        const reason = await authorize(
          ctx,
          call,
          { capability: 'fs.glob', path: target, pattern },
          { action: `search ${path ?? '.'}`, summary: `glob ${pattern}` },
        );
        const walk = {
          projectDir: ctx.projectDir,
          roots,
          hidden: ctx.records,
          sort: 'path' as const,
          ...(limit ? { limit } : {}),
        };
        const { result, found, allowed } = await globRead(target.real, pattern, walk, judgeCtx(), {
          ...options,
          signal: ctx.signal,
        });
        noticeSecrets(ctx, result.skipped);
        return { value: result, reason: `${reason}; ${allowed} of ${found} files found allowed` };
      }
      // Resolved, judged path by path (denied ones are skipped, never read) and read on an I/O
      // thread, with the run's rules; as fs.readMany, Read rules and Grep rules both apply.
      const { result, allowed } = await judgeReadMany(req.paths, judgeCtx(), options);
      noticeSecrets(ctx, result.skipped);
      return { value: result, reason: `${allowed} of ${req.paths.length} paths allowed` };
    });
  };
  const globHandler: Handler<'fs.glob'> = (raw) =>
    audited(ctx, 'fs.glob', String((raw as { pattern?: unknown })?.pattern ?? ''), async (call) => {
      const req = parseRequest('fs.glob', raw);
      const target = await resolve(req.path ?? '.');
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.glob', path: target, pattern: req.pattern },
        { action: `search ${req.path ?? '.'}`, summary: `glob ${req.pattern}` },
      );
      const value = await glob(
        target.real,
        req.pattern,
        {
          projectDir: ctx.projectDir,
          roots,
          hidden: ctx.records,
          ...(req.limit ? { limit: req.limit } : {}),
          ...(req.sort ? { sort: req.sort } : {}),
        },
        ctx.signal,
      );
      return { value, reason };
    });
  const statHandler: Handler<'fs.stat'> = (raw) =>
    audited(ctx, 'fs.stat', String((raw as { path?: unknown })?.path ?? ''), async (call) => {
      const req = parseRequest('fs.stat', raw);
      const target = await resolve(req.path);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.stat', path: target },
        { action: `inspect ${req.path}`, summary: `stat ${req.path}` },
      );
      return { value: { ...(await stat(target.real)), path: target.absolute }, reason };
    });
  const listHandler: Handler<'fs.list'> = (raw) =>
    audited(ctx, 'fs.list', String((raw as { path?: unknown })?.path ?? ''), async (call) => {
      const req = parseRequest('fs.list', raw);
      const target = await resolve(req.path);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.list', path: target },
        { action: `list ${req.path}`, summary: `list ${req.path}` },
      );
      const listed = await list(target.real, req.ignore ?? [], undefined, ctx.records);
      return { value: { ...listed, path: target.absolute }, reason };
    });
  const write: Handler<'fs.write'> = (raw) => {
    const r = raw as { path?: unknown; content?: unknown };
    const summary = `${String(r?.path ?? '')} (${typeof r?.content === 'string' ? r.content.length : 0} chars)`;
    return audited(ctx, 'fs.write', summary, async (call) => {
      const req = parseRequest('fs.write', raw);
      const target = await resolve(req.path);
      const reason = await authorize(
        ctx,
        call,
        { capability: 'fs.write', path: target, ...(await writeFacts(target, req.content)) },
        {
          action: `${target.exists ? 'edit' : 'create'} ${req.path}`,
          summary: `write ${req.path} (${req.content.length} chars)`,
          preview: async () => writePreview(req.path, await currentText(ctx, target), req.content),
          detail: () => detailOf(req.content),
        },
      );
      const value = await writeAtomic(
        target.real,
        req.content,
        req.expectedMtimeMs === undefined ? {} : { expectedMtimeMs: req.expectedMtimeMs },
      );
      return { value: { ...value, path: target.absolute }, reason };
    });
  };
  const exec: Handler<'exec.run'> = (raw) =>
    audited(
      ctx,
      'exec.run',
      String((raw as { command?: unknown })?.command ?? '').slice(0, 200),
      async (call) => {
        const req = parseRequest('exec.run', raw);
        const settings = ctx.sandbox.settings;
        // "No prompts" never means "no sandbox": bypassPermissions runs commands only inside one.
        if (settings.mode === 'off' && ctx.mode === 'bypassPermissions')
          throw new CadreError(
            'permission_denied',
            'bypassPermissions runs commands only inside the sandbox, and "sandbox" is "off" in config; use another permission mode, or turn the sandbox back on',
          );
        // Loaded at the first command of the process, not at start-up (most runs never need it).
        await loadShellGrammar();
        const reason = await authorize(
          ctx,
          call,
          { capability: 'exec.run', command: req.command },
          {
            action: 'run Bash',
            summary: `run: ${req.command}`,
            preview: () => `$ ${req.command}${req.description ? `\n# ${req.description}` : ''}`,
            detail: () => detailOf(req),
          },
        );
        try {
          const value = await runCommand({
            command: req.command,
            cwd: ctx.projectDir,
            sandbox: settings.mode,
            signal: ctx.signal,
            ...(req.timeoutMs ? { timeoutMs: req.timeoutMs } : {}),
            ...(settings.mode !== 'off' ? { sandboxStatus: await ctx.sandbox.status() } : {}),
            sandboxInputs: {
              home: ctx.homeDir,
              extraRoots: ctx.extraRoots,
              allowRead: settings.allowRead,
              denyRead: [...settings.denyRead, ...ctx.sandbox.records],
              protect: settings.protect,
              rules: ctx.rules,
            },
          });
          if (value.notices !== undefined) ctx.sandbox.notices(ctx.agentId, value.notices);
          return { value, reason };
        } catch (error) {
          if (error instanceof CadreError && error.code === 'sandbox_unavailable')
            ctx.sandbox.refused(ctx.agentId, error.message);
          throw error;
        }
      },
    );
  return {
    'fs.read': read,
    'fs.readMany': readManyHandler,
    'fs.glob': globHandler,
    'fs.stat': statHandler,
    'fs.list': listHandler,
    'fs.write': write,
    'exec.run': exec,
  };
}
