// The one authorization step every capability call passes: the policy function decides allow /
// ask / deny; an `ask` waits in the approval queue (the run's clock stopped, the wait ended by the
// run's cancel signal, the request and its answer reported into the run's transcript); and the
// audit log gets one line per call saying what was decided, by whom, and how the call ended.
import { randomUUID } from 'node:crypto';
import { CadreError, fail, ok, type Envelope } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { PermissionMode } from '../../shared/task.js';
import { formatZodError } from '../../shared/zod-format.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { ApprovalDecider } from '../approvals/types.js';
import type { AuditLog } from './audit.js';
import { decide } from './policy.js';
import type { PolicyDecision, PolicyInput, PolicyRules } from './policy/types.js';
import { CapabilityRequests } from './requests.js';

/** Who is calling, under which rules, and where its approvals and records go. */
export interface AuthorizeContext {
  agentId: string;
  agentType: string;
  parentId?: string;
  parentType?: string;
  /** How deep the run is in its tree (0: a top-level run). */
  depth?: number;
  projectDir: string;
  extraRoots: string[];
  homeDir: string;
  mode: PermissionMode;
  rules: PolicyRules;
  approvals: ApprovalBroker;
  audit: AuditLog | undefined;
  /** Aborts when the run ends: a pending approval is then denied, in-flight effects stopped. */
  signal: AbortSignal;
  /** Stops the run's clock while a person answers an approval. */
  pauseClock: () => () => void;
  /** Puts approval events into the run's transcript and its tree's listeners. */
  report?: (event: ApprovalEvent) => void;
}

/** The approval events a run reports. */
export type ApprovalEvent = Extract<AgentEvent, { type: 'approval-request' | 'approval-result' }>;

/** What one call's audit line says about its authorization; filled in by `authorize`. */
export interface CallAudit {
  decision?: 'allow' | 'ask' | 'deny';
  approval?: 'allow' | 'deny';
  decidedBy?: 'policy' | ApprovalDecider;
  waitedMs?: number;
  rule?: string;
}

/** What a prompt shows for a call that asks. */
export interface AskSpec {
  /** Title verb phrase: `run Bash`, `write src/a.ts`. */
  action: string;
  /** One line a person can judge. */
  summary: string;
  /** Built only when the call asks (a write's diff reads the current file). */
  preview?: () => string | Promise<string>;
  /** The whole input, for the prompt's `d` key (built only when the call asks). */
  detail?: () => string;
}

/** The policy input without the fields the context supplies. */
export type CallInput = Omit<PolicyInput, 'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules'>;

/** Parses a request or throws `invalid_input` naming the field. */
export function parseRequest<K extends keyof typeof CapabilityRequests>(
  name: K,
  raw: unknown,
): ReturnType<(typeof CapabilityRequests)[K]['parse']> {
  const parsed = CapabilityRequests[name].safeParse(raw);
  if (!parsed.success) throw new CadreError('invalid_input', formatZodError(parsed.error, name).join('; '));
  return parsed.data as ReturnType<(typeof CapabilityRequests)[K]['parse']>;
}

function withSessionRules(rules: PolicyRules, session: readonly string[]): PolicyRules {
  return session.length === 0 ? rules : { ...rules, allow: [...(rules.allow ?? []), ...session] };
}

function policyInput(ctx: AuthorizeContext, input: CallInput, rules: PolicyRules): PolicyInput {
  return {
    ...input,
    projectDir: ctx.projectDir,
    extraRoots: ctx.extraRoots,
    homeDir: ctx.homeDir,
    mode: ctx.mode,
    rules,
  };
}

async function previewOf(ask: AskSpec): Promise<string | undefined> {
  try {
    return await ask.preview?.();
  } catch (error) {
    return `(no preview: ${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Decides one call: returns the reason it may go ahead, or throws the refusal (the policy's code,
 * or `approval_denied` with the answer's reason, which the model reads as its tool result).
 * Rules granted "for this session" count as allow rules; deny rules and protected paths still win.
 */
export async function authorize(
  ctx: AuthorizeContext,
  call: CallAudit,
  input: CallInput,
  ask: AskSpec,
): Promise<string> {
  const session = ctx.approvals.sessionRules();
  const verdict = decide(policyInput(ctx, input, withSessionRules(ctx.rules, session)));
  call.decision = verdict.decision;
  if (verdict.rule !== undefined) call.rule = verdict.rule;
  if (verdict.decision !== 'ask') {
    call.decidedBy = verdict.rule !== undefined && session.includes(verdict.rule) ? 'session' : 'policy';
    if (verdict.decision === 'deny')
      throw new CadreError(verdict.code ?? 'permission_denied', verdict.reason);
    return verdict.reason;
  }
  return askPerson(ctx, call, input, verdict, ask);
}

/** The `ask` half of `authorize`: the wait in the queue, with the clock stopped and both ends reported. */
async function askPerson(
  ctx: AuthorizeContext,
  call: CallAudit,
  input: CallInput,
  verdict: PolicyDecision,
  ask: AskSpec,
): Promise<string> {
  const resume = ctx.pauseClock();
  try {
    const preview = await previewOf(ask);
    const detail = ask.detail?.();
    const requestId = `apr_${randomUUID()}`;
    const stamp = {
      agentId: ctx.agentId,
      depth: ctx.depth ?? 0,
      ...(ctx.parentId ? { parentId: ctx.parentId } : {}),
    };
    // Reported before the wait: the transcript and the live tree show the run as waiting on a person.
    ctx.report?.({
      ...stamp,
      at: Date.now(),
      type: 'approval-request',
      requestId,
      capability: input.capability,
      summary: ask.summary,
      reason: verdict.reason,
    });
    const answer = await ctx.approvals.request({
      id: requestId,
      agentId: ctx.agentId,
      agentType: ctx.agentType,
      ...(ctx.parentId !== undefined ? { parentId: ctx.parentId } : {}),
      ...(ctx.parentType !== undefined ? { parentType: ctx.parentType } : {}),
      depth: ctx.depth ?? 0,
      capability: input.capability,
      action: ask.action,
      summary: ask.summary,
      ...(preview !== undefined ? { preview } : {}),
      ...(detail !== undefined ? { detail } : {}),
      reason: verdict.reason,
      ...(verdict.suggestions ? { suggestions: verdict.suggestions } : {}),
      coveredBy: (rules) =>
        decide(policyInput(ctx, input, withSessionRules(ctx.rules, rules))).decision === 'allow',
      signal: ctx.signal,
    });
    ctx.report?.({
      ...stamp,
      at: Date.now(),
      type: 'approval-result',
      requestId,
      decision: answer.decision,
      reason: answer.reason,
      decidedBy: answer.decidedBy,
      waitedMs: answer.waitedMs,
    });
    call.approval = answer.decision;
    call.decidedBy = answer.decidedBy;
    call.waitedMs = answer.waitedMs;
    if (answer.decision !== 'allow') throw new CadreError('approval_denied', answer.reason);
    return answer.reason;
  } finally {
    resume();
  }
}

/** Codes that mean the policy or a person refused the call (audited as `deny` when nobody was asked). */
const REFUSALS: ReadonlySet<string> = new Set([
  'permission_denied',
  'approval_denied',
  'path_outside_project',
  'sensitive_path',
  'not_granted',
]);

/** Runs one call with timing and its audit line; every result is an envelope. */
export function audited<T>(
  ctx: Pick<AuthorizeContext, 'agentId' | 'agentType' | 'audit'>,
  capability: string,
  summary: unknown,
  work: (call: CallAudit) => Promise<{ value: T; reason: string }>,
): Promise<Envelope<T>> {
  const started = performance.now();
  const call: CallAudit = {};
  const record = (entry: { reason: string; ok: boolean; errorCode?: string }) =>
    ctx.audit?.record({
      at: Date.now(),
      agentId: ctx.agentId,
      agentType: ctx.agentType,
      capability,
      args: summary,
      durationMs: performance.now() - started,
      decision: call.decision ?? (entry.errorCode && REFUSALS.has(entry.errorCode) ? 'deny' : 'allow'),
      ...(call.approval ? { approval: call.approval } : {}),
      ...(call.decidedBy ? { decidedBy: call.decidedBy } : {}),
      ...(call.waitedMs !== undefined ? { waitedMs: call.waitedMs } : {}),
      ...(call.rule ? { rule: call.rule } : {}),
      ...entry,
    });
  return work(call).then(
    ({ value, reason }) => {
      record({ reason, ok: true });
      return ok(value);
    },
    (error: unknown) => {
      const envelope = fail(error);
      if (!envelope.ok) {
        const { code, message } = envelope.error;
        record({ reason: message, ok: false, errorCode: code });
      }
      return envelope;
    },
  );
}
