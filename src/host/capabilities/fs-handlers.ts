// The file and command capabilities of one run: parse the worker's request, resolve every path
// (realpath), ask the one policy function, wait for approval when it says `ask`, audit, and only
// then perform the effect.
import type { Capabilities, CapabilityName } from '../../shared/capabilities.js';
import { CadreError, fail, ok, type Envelope } from '../../shared/errors.js';
import type { PermissionMode } from '../../shared/task.js';
import { formatZodError } from '../../shared/zod-format.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { AuditLog } from './audit.js';
import { runCommand } from './exec.js';
import type { SandboxGate } from './sandbox/gate.js';
import { glob } from './fs/glob.js';
import { list } from './fs/list.js';
import { globRead } from './fs/glob-read.js';
import type { JudgeContext } from './fs/judge-read-sync.js';
import { judgeReadMany } from './fs/read-many.js';
import { readText } from './fs/read.js';
import { stat } from './fs/stat.js';
import { writeAtomic } from './fs/write.js';
import { resolvePath, type ResolvedPath } from './paths.js';
import { decide } from './policy.js';
import type { PolicyInput, PolicyRules } from './policy/types.js';
import { CapabilityRequests } from './requests.js';

/** Who is calling and under which rules. */
export interface EffectContext {
  agentId: string;
  agentType: string;
  projectDir: string;
  extraRoots: string[];
  homeDir: string;
  mode: PermissionMode;
  rules: PolicyRules;
  /** The command sandbox: its settings, the probe, and what the user is told. */
  sandbox: SandboxGate;
  approvals: ApprovalBroker;
  audit: AuditLog | undefined;
  /** Aborts when the run ends: in-flight commands are killed. */
  signal: AbortSignal;
  /** Stops the run's clock while a person answers an approval. */
  pauseClock: () => () => void;
}

type Handler<K extends CapabilityName> = Capabilities[K];

/** Parses a request or throws `invalid_input` naming the field. */
export function parseRequest<K extends keyof typeof CapabilityRequests>(
  name: K,
  raw: unknown,
): ReturnType<(typeof CapabilityRequests)[K]['parse']> {
  const parsed = CapabilityRequests[name].safeParse(raw);
  if (!parsed.success) throw new CadreError('invalid_input', formatZodError(parsed.error, name).join('; '));
  return parsed.data as ReturnType<(typeof CapabilityRequests)[K]['parse']>;
}

/** Runs the policy (and the approval queue) for one call; throws when denied. */
async function authorize(
  ctx: EffectContext,
  input: Omit<PolicyInput, 'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules'>,
  summary: string,
): Promise<string> {
  const verdict = decide({
    ...input,
    projectDir: ctx.projectDir,
    extraRoots: ctx.extraRoots,
    homeDir: ctx.homeDir,
    mode: ctx.mode,
    rules: ctx.rules,
  });
  if (verdict.decision === 'allow') return verdict.reason;
  if (verdict.decision === 'deny') throw new CadreError(verdict.code ?? 'permission_denied', verdict.reason);
  const resume = ctx.pauseClock();
  try {
    const answer = await ctx.approvals.request({
      agentId: ctx.agentId,
      agentType: ctx.agentType,
      capability: input.capability,
      summary,
      reason: verdict.reason,
      ...(verdict.suggestions ? { suggestions: verdict.suggestions } : {}),
      signal: ctx.signal,
    });
    if (answer.decision !== 'allow') throw new CadreError('approval_denied', answer.reason);
    return answer.reason;
  } finally {
    resume();
  }
}

/** Codes that mean the policy or a person refused the call (audited as `deny`). */
const REFUSALS: ReadonlySet<string> = new Set([
  'permission_denied',
  'approval_denied',
  'path_outside_project',
  'sensitive_path',
]);

/** Wraps an effect with timing and the audit log; every result is an envelope. */
function audited<T>(
  ctx: EffectContext,
  capability: string,
  summary: string,
  work: () => Promise<{ value: T; reason: string }>,
): Promise<Envelope<T>> {
  const started = performance.now();
  const record = (entry: { decision: 'allow' | 'deny'; reason: string; ok: boolean; errorCode?: string }) =>
    ctx.audit?.record({
      at: Date.now(),
      agentId: ctx.agentId,
      agentType: ctx.agentType,
      capability,
      args: summary,
      durationMs: performance.now() - started,
      ...entry,
    });
  return work().then(
    ({ value, reason }) => {
      record({ decision: 'allow', reason, ok: true });
      return ok(value);
    },
    (error: unknown) => {
      const envelope = fail(error);
      if (!envelope.ok) {
        const { code, message } = envelope.error;
        record({
          decision: REFUSALS.has(code) ? 'deny' : 'allow',
          reason: message,
          ok: false,
          errorCode: code,
        });
      }
      return envelope;
    },
  );
}

/** Builds the fs.* and exec.run handlers of one run. */
export function effectHandlers(ctx: EffectContext): Partial<Capabilities> {
  const resolve = (p: string): Promise<ResolvedPath> => resolvePath(p, ctx.projectDir);
  const roots = [ctx.projectDir, ...ctx.extraRoots];
  const read: Handler<'fs.read'> = (raw) => {
    const summary = String((raw as { path?: unknown })?.path ?? '');
    return audited(ctx, 'fs.read', summary, async () => {
      const req = parseRequest('fs.read', raw);
      const target = await resolve(req.path);
      const reason = await authorize(ctx, { capability: 'fs.read', path: target }, `read ${req.path}`);
      const value = await readText(target.real, {
        ...(req.offset ? { offset: req.offset } : {}),
        ...(req.limit ? { limit: req.limit } : {}),
      });
      return { value: { ...value, path: target.absolute }, reason };
    });
  };
  const judgeCtx = (): JudgeContext => ({
    projectDir: ctx.projectDir,
    extraRoots: ctx.extraRoots,
    homeDir: ctx.homeDir,
    mode: ctx.mode,
    rules: ctx.rules,
  });
  const readManyHandler: Handler<'fs.readMany'> = (raw) => {
    const r = raw as { paths?: unknown[]; glob?: { pattern?: unknown } };
    const summary =
      r?.glob !== undefined
        ? `glob ${String(r.glob?.pattern ?? '')}`
        : `${String(r?.paths?.length ?? 0)} files`;
    return audited(ctx, 'fs.readMany', summary, async () => {
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
          { capability: 'fs.glob', path: target, pattern },
          `glob ${pattern}`,
        );
        const walk = {
          projectDir: ctx.projectDir,
          roots,
          sort: 'path' as const,
          ...(limit ? { limit } : {}),
        };
        const { result, found, allowed } = await globRead(target.real, pattern, walk, judgeCtx(), {
          ...options,
          signal: ctx.signal,
        });
        return { value: result, reason: `${reason}; ${allowed} of ${found} files found allowed` };
      }
      // Resolved, judged path by path (denied ones are skipped, never read) and read on an I/O
      // thread, with the run's rules; as fs.readMany, Read rules and Grep rules both apply.
      const { result, allowed } = await judgeReadMany(req.paths, judgeCtx(), options);
      return { value: result, reason: `${allowed} of ${req.paths.length} paths allowed` };
    });
  };
  const globHandler: Handler<'fs.glob'> = (raw) =>
    audited(ctx, 'fs.glob', String((raw as { pattern?: unknown })?.pattern ?? ''), async () => {
      const req = parseRequest('fs.glob', raw);
      const target = await resolve(req.path ?? '.');
      const reason = await authorize(
        ctx,
        { capability: 'fs.glob', path: target, pattern: req.pattern },
        `glob ${req.pattern}`,
      );
      const value = await glob(
        target.real,
        req.pattern,
        {
          projectDir: ctx.projectDir,
          roots,
          ...(req.limit ? { limit: req.limit } : {}),
          ...(req.sort ? { sort: req.sort } : {}),
        },
        ctx.signal,
      );
      return { value, reason };
    });
  const statHandler: Handler<'fs.stat'> = (raw) =>
    audited(ctx, 'fs.stat', String((raw as { path?: unknown })?.path ?? ''), async () => {
      const req = parseRequest('fs.stat', raw);
      const target = await resolve(req.path);
      const reason = await authorize(ctx, { capability: 'fs.stat', path: target }, `stat ${req.path}`);
      return { value: { ...(await stat(target.real)), path: target.absolute }, reason };
    });
  const listHandler: Handler<'fs.list'> = (raw) =>
    audited(ctx, 'fs.list', String((raw as { path?: unknown })?.path ?? ''), async () => {
      const req = parseRequest('fs.list', raw);
      const target = await resolve(req.path);
      const reason = await authorize(ctx, { capability: 'fs.list', path: target }, `list ${req.path}`);
      return { value: { ...(await list(target.real, req.ignore ?? [])), path: target.absolute }, reason };
    });
  const write: Handler<'fs.write'> = (raw) => {
    const r = raw as { path?: unknown; content?: unknown };
    const summary = `${String(r?.path ?? '')} (${typeof r?.content === 'string' ? r.content.length : 0} chars)`;
    return audited(ctx, 'fs.write', summary, async () => {
      const req = parseRequest('fs.write', raw);
      const target = await resolve(req.path);
      const reason = await authorize(
        ctx,
        { capability: 'fs.write', path: target },
        `write ${req.path} (${req.content.length} chars)`,
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
      async () => {
        const req = parseRequest('exec.run', raw);
        const settings = ctx.sandbox.settings;
        // "No prompts" never means "no sandbox": bypassPermissions runs commands only inside one.
        if (settings.mode === 'off' && ctx.mode === 'bypassPermissions')
          throw new CadreError(
            'permission_denied',
            'bypassPermissions runs commands only inside the sandbox, and "sandbox" is "off" in config; use another permission mode, or turn the sandbox back on',
          );
        const reason = await authorize(
          ctx,
          { capability: 'exec.run', command: req.command },
          `run: ${req.command}`,
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
