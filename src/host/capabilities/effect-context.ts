// The one authorization step every capability call passes, and what it runs in: the run's context
// (who calls, under which rules), the request parsed, the one policy function asked, a person asked
// when it says `ask` (the run's clock stopped, the wait ended by the run's cancel signal, the request
// and its answer reported into the run's transcript), and one audit line per call saying what was
// decided, by whom, and how the call ended (auditCall). File effects and commands (fs-handlers.ts),
// WebFetch, MCP calls and subagent launches (delegation-handlers.ts) are all built on these; model
// requests, which never ask, write their audit lines through auditCall too (model-http-relay.ts).
import { randomUUID } from 'node:crypto';
import { CadreError, fail, ok, REFUSAL_CODES, type Envelope, type ErrorCode } from '../../shared/errors.js';
import type { AgentEvent } from '../../shared/events.js';
import type { PermissionMode } from '../../shared/task.js';
import { formatZodError } from '../../shared/zod-format.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import type { ApprovalDecider } from '../approvals/types.js';
import type { AuditLog } from './audit.js';
import type { JudgeContext } from './fs/judge-read-sync.js';
import { decide } from './policy.js';
import type { PolicyDecision, PolicyInput, PolicyRules } from './policy/types.js';
import { CapabilityRequests } from './requests.js';
import type { SandboxGate } from './sandbox/gate.js';
import type { NamedCall, VerdictMemo } from './verdict-memo.js';

/** Who is calling, under which rules, and where its approvals, records and reports go. */
export interface EffectContext {
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
  /** cadre's own records (absolute, real): no file capability touches them, no walk lists them. */
  records: readonly string[];
  /** Protected paths added by config (`sandbox.protect`), on top of the built-in list. */
  protect: readonly string[];
  /** The command sandbox: its settings, the probe, and what the user is told. */
  sandbox: SandboxGate;
  approvals: ApprovalBroker;
  audit: AuditLog | undefined;
  /** Aborts when the run ends: a pending approval is then denied, in-flight effects stopped. */
  signal: AbortSignal;
  /** Stops the run's clock while a person answers an approval. */
  pauseClock: () => () => void;
  /** Tells the person something about the run (a `notice` event): secrets a search left out. */
  notice?: (message: string) => void;
  /** Told of every call the policy or an approval refused (the host's `effect-refused` event). */
  onRefused?: (refusal: EffectRefusal) => void;
  /** Puts approval events into the run's transcript and its tree's listeners. */
  report?: (event: ApprovalEvent) => void;
}

/** The approval events a run reports. */
type ApprovalEvent = Extract<AgentEvent, { type: 'approval-request' | 'approval-result' }>;

/** A refused capability call, as the run's events report it. */
export interface EffectRefusal {
  capability: string;
  summary: string;
  code: string;
  reason: string;
  /** Allow rules that would let the call through, when the policy can name them. */
  allow?: string[];
}

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
  /** One line a person can judge (a function: built only when the call asks). */
  summary: string | (() => string);
  /** Built only when the call asks (a write's diff reads the current file). */
  preview?: () => string | Promise<string>;
  /** The whole input, for the prompt's `d` key (built only when the call asks). */
  detail?: () => string;
}

/** The policy input without the fields the context supplies. */
export type CallInput = Omit<
  PolicyInput,
  'projectDir' | 'extraRoots' | 'homeDir' | 'mode' | 'rules' | 'records' | 'protect'
>;

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
function allowRules(details: Record<string, unknown> | undefined): string[] | undefined {
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

/** The run's side of a policy input, with the rules a person allowed for this session added to the allow rules. */
function runSide(ctx: EffectContext, session: readonly string[]): JudgeContext {
  const rules =
    session.length === 0 ? ctx.rules : { ...ctx.rules, allow: [...(ctx.rules.allow ?? []), ...session] };
  // Spelled out rather than spread from judgeContext(): this runs on every call.
  return {
    projectDir: ctx.projectDir,
    extraRoots: ctx.extraRoots,
    homeDir: ctx.homeDir,
    mode: ctx.mode,
    rules,
    records: ctx.records,
    protect: ctx.protect,
  };
}

/** The policy input of a call, with the session's rules (see runSide). */
function policyInput(ctx: EffectContext, input: CallInput, session: readonly string[]): PolicyInput {
  return { ...input, ...runSide(ctx, session) };
}

/** A call judged on its name alone (an MCP tool's): exactly the fields a VerdictMemo keys on. */
function isNamedCall(input: CallInput): input is CallInput & NamedCall {
  let fields = 0;
  for (const key in input) {
    if (key !== 'capability' && key !== 'tool' && key !== 'readOnly') return false;
    fields++;
  }
  return fields === 3 && typeof input.tool === 'string' && typeof input.readOnly === 'boolean';
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
 * or `approval_denied` with the answer's reason, which the model reads as its tool result; either
 * carries the allow rules that would let the call through). Rules granted "for this session" count
 * as allow rules; deny rules, protected paths and cadre's records still win. With `memo` (one per
 * run), a call judged on its name alone takes the policy's verdict for an equal input from there.
 */
export async function authorize(
  ctx: EffectContext,
  call: CallAudit,
  input: CallInput,
  ask: AskSpec,
  memo?: VerdictMemo,
): Promise<string> {
  const session = ctx.approvals.sessionRules();
  const verdict =
    memo !== undefined && isNamedCall(input)
      ? memo.decide(input, runSide(ctx, session))
      : decide(policyInput(ctx, input, session));
  call.decision = verdict.decision;
  if (verdict.rule !== undefined) call.rule = verdict.rule;
  if (verdict.decision !== 'ask') {
    call.decidedBy = verdict.rule !== undefined && session.includes(verdict.rule) ? 'session' : 'policy';
    if (verdict.decision === 'deny')
      throw refusalError(verdict.code ?? 'permission_denied', verdict.reason, verdict.suggestions);
    return verdict.reason;
  }
  return askPerson(ctx, call, input, verdict, ask);
}

/** The `ask` half of `authorize`: the wait in the queue, with the clock stopped and both ends reported. */
async function askPerson(
  ctx: EffectContext,
  call: CallAudit,
  input: CallInput,
  verdict: PolicyDecision,
  ask: AskSpec,
): Promise<string> {
  const resume = ctx.pauseClock();
  try {
    const preview = await previewOf(ask);
    const detail = ask.detail?.();
    const summary = typeof ask.summary === 'function' ? ask.summary() : ask.summary;
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
      summary,
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
      summary,
      ...(preview !== undefined ? { preview } : {}),
      ...(detail !== undefined ? { detail } : {}),
      reason: verdict.reason,
      ...(verdict.suggestions ? { suggestions: verdict.suggestions } : {}),
      coveredBy: (rules) => decide(policyInput(ctx, input, rules)).decision === 'allow',
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
    if (answer.decision !== 'allow')
      throw refusalError('approval_denied', answer.reason, verdict.suggestions);
    return answer.reason;
  } finally {
    resume();
  }
}

/** How one call ended, for its audit line. */
export interface CallEnd {
  reason: string;
  ok: boolean;
  errorCode?: string;
}

/**
 * Writes one call's audit line: what was decided (`call`, filled in by `authorize`), by whom, and
 * how the call ended. Every capability's audit line is written here, so they all read the same.
 */
export function auditCall(
  ctx: Pick<EffectContext, 'agentId' | 'agentType' | 'audit'>,
  capability: string,
  args: unknown,
  call: CallAudit,
  startedMs: number,
  end: CallEnd,
): void {
  ctx.audit?.record({
    at: Date.now(),
    agentId: ctx.agentId,
    agentType: ctx.agentType,
    capability,
    args,
    durationMs: performance.now() - startedMs,
    // A refusal after the policy allowed (what a file turned out to begin with) is a deny too.
    decision:
      end.errorCode !== undefined && REFUSAL_CODES.has(end.errorCode) && call.decision !== 'ask'
        ? 'deny'
        : (call.decision ?? 'allow'),
    ...(call.approval ? { approval: call.approval } : {}),
    ...(call.decidedBy ? { decidedBy: call.decidedBy } : {}),
    ...(call.waitedMs !== undefined ? { waitedMs: call.waitedMs } : {}),
    ...(call.rule ? { rule: call.rule } : {}),
    ...end,
  });
}

/**
 * Runs one call with timing and its audit line; every result is an envelope. A refusal (one of
 * REFUSAL_CODES: audited as `deny` when nobody was asked) is told to `ctx.onRefused`. `summary` is
 * the one line a refusal shows; `args` (default: the summary) is what the audit log summarises.
 */
export function audited<T>(
  ctx: Pick<EffectContext, 'agentId' | 'agentType' | 'audit' | 'onRefused'>,
  capability: string,
  summary: string,
  work: (call: CallAudit) => Promise<{ value: T; reason: string }>,
  args: unknown = summary,
): Promise<Envelope<T>> {
  const started = performance.now();
  const call: CallAudit = {};
  return work(call).then(
    ({ value, reason }) => {
      auditCall(ctx, capability, args, call, started, { reason, ok: true });
      return ok(value);
    },
    (error: unknown) => {
      const envelope = fail(error);
      if (!envelope.ok) {
        const { code, message, details } = envelope.error;
        auditCall(ctx, capability, args, call, started, { reason: message, ok: false, errorCode: code });
        // The model reads the refusal in its tool result; the person reads it in the run's events.
        if (REFUSAL_CODES.has(code)) {
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
