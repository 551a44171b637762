// What every effect of a run goes through, in one path: its context (who calls, under which rules),
// the request parsed, the one policy function asked, a person asked when it says `ask`, and the
// outcome audited. fs-handlers.ts and the other effect handlers are built on these.
import { CadreError, fail, ok, type Envelope, type ErrorCode } from '../../shared/errors.js';
import type { PermissionMode } from '../../shared/task.js';
import { formatZodError } from '../../shared/zod-format.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { AuditLog } from './audit.js';
import type { JudgeContext } from './fs/judge-read-sync.js';
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
  /** cadre's own records (absolute, real): no file capability touches them, no walk lists them. */
  records: readonly string[];
  /** Protected paths added by config (`sandbox.protect`), on top of the built-in list. */
  protect: readonly string[];
  sandbox: 'auto' | 'required' | 'off';
  approvals: ApprovalBroker;
  audit: AuditLog | undefined;
  /** Aborts when the run ends: in-flight commands are killed. */
  signal: AbortSignal;
  /** Stops the run's clock while a person answers an approval. */
  pauseClock: () => () => void;
  /** Tells the person something about the run (a `notice` event): secrets a search left out. */
  notice?: (message: string) => void;
  /** Told of every call the policy or an approval refused (the host's `effect-refused` event). */
  onRefused?: (refusal: EffectRefusal) => void;
}

/** A refused capability call, as the run's events report it. */
export interface EffectRefusal {
  capability: string;
  summary: string;
  code: string;
  reason: string;
  /** Allow rules that would let the call through, when the policy can name them. */
  allow?: string[];
}

/**
 * The error for a call the policy or a person refused. It carries the allow rules that would let
 * the call through (`details.allow`), so the refusal the person sees can name them.
 */
export function refusalError(
  code: ErrorCode,
  reason: string,
  allow: readonly string[] | undefined,
): CadreError {
  return new CadreError(code, reason, allow && allow.length > 0 ? { allow: [...allow] } : undefined);
}

/** The allow rules a refusal's wire error carries (see refusalError). */
export function allowRules(details: Record<string, unknown> | undefined): string[] | undefined {
  const allow = details?.['allow'];
  return Array.isArray(allow) && allow.every((r) => typeof r === 'string') ? (allow as string[]) : undefined;
}

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
export async function authorize(
  ctx: EffectContext,
  input: Omit<
    PolicyInput,
    'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules' | 'records' | 'protect'
  >,
  summary: string,
): Promise<string> {
  const verdict = decide({ ...input, ...judgeContext(ctx) });
  if (verdict.decision === 'allow') return verdict.reason;
  if (verdict.decision === 'deny')
    throw refusalError(verdict.code ?? 'permission_denied', verdict.reason, verdict.suggestions);
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
    if (answer.decision !== 'allow')
      throw refusalError('approval_denied', answer.reason, verdict.suggestions);
    return answer.reason;
  } finally {
    resume();
  }
}

/** The run's places and rules, as every file decision takes them (also on the I/O threads). */
export function judgeContext(ctx: EffectContext): JudgeContext {
  return {
    projectDir: ctx.projectDir,
    extraRoots: ctx.extraRoots,
    homeDir: ctx.homeDir,
    mode: ctx.mode,
    rules: ctx.rules,
    records: ctx.records,
    protect: ctx.protect,
  };
}

/**
 * Codes that mean the policy, a person or the run's grant refused the call (audited as `deny`,
 * reported as `effect-refused`): `not_granted` is a Task type or an MCP tool the run was not given.
 */
export const REFUSALS: ReadonlySet<string> = new Set([
  'not_granted',
  'permission_denied',
  'approval_denied',
  'path_outside_project',
  'sensitive_path',
  'forbidden_operation',
]);

/** Wraps an effect with timing and the audit log; every result is an envelope. */
export function audited<T>(
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
        const { code, message, details } = envelope.error;
        const refused = REFUSALS.has(code);
        record({ decision: refused ? 'deny' : 'allow', reason: message, ok: false, errorCode: code });
        // The model reads the refusal in its tool result; the person reads it in the run's events.
        if (refused) {
          const allow = allowRules(details);
          ctx.onRefused?.({
            capability,
            summary: summary.slice(0, 200),
            code,
            reason: message,
            ...(allow ? { allow } : {}),
          });
        }
      }
      return envelope;
    },
  );
}
