// The approval contract: what an `ask` verdict turns into (a request labelled with the asking
// agent), what a resolver answers, and what the caller gets back (including how long it waited).

/** What a capability asks approval for. */
export interface ApprovalInput {
  /** The request's id, when the caller names it before asking (default: a fresh one). */
  id?: string;
  agentId: string;
  agentType: string;
  parentId?: string;
  /** The parent's agent type, so a prompt can say `explore › worker-3`. */
  parentType?: string;
  depth?: number;
  /** The capability name (`fs.write`, `exec.run`, ...). */
  capability: string;
  /** What the call does, for a prompt's title (`run Bash`, `write src/a.ts`). */
  action?: string;
  /** One line a person can judge: the command, the path, the URL. */
  summary: string;
  /**
   * What a person needs to judge the call beyond the summary: the exact command, or the file and a
   * bounded diff of what a write changes. Model-controlled: render it sanitized.
   */
  preview?: string;
  /** The whole input (`d` in a prompt shows it), already cut to a bounded size. */
  detail?: string;
  /** The policy's reason for asking (it names the mode or rule that would allow the call). */
  reason: string;
  /** Allow rules that would cover the call (the policy's `suggestions`); "allow for this session" remembers them. */
  suggestions?: string[];
  /**
   * Whether session rules (allow rules granted "for this session") cover this call, judged by the
   * policy itself. Without it, a request is covered when every suggestion is a session rule.
   */
  coveredBy?: (sessionRules: readonly string[]) => boolean;
  /** Aborts the wait (the run was cancelled or killed): the request is then denied. */
  signal?: AbortSignal;
}

/** A queued request, as resolvers and listeners see it. */
export interface ApprovalRequest extends Omit<ApprovalInput, 'signal' | 'coveredBy' | 'id'> {
  id: string;
  /** Epoch ms when it was queued. */
  requestedAt: number;
}

/** A resolver's answer. `scope: 'session'` remembers it for the rest of the session. */
export interface ResolverAnswer {
  decision: 'allow' | 'deny';
  reason?: string;
  scope?: 'once' | 'session';
}

/**
 * Decides requests the policy could not decide alone: the interactive Ink prompt, a library
 * caller's callback, or the non-interactive resolver. The broker calls it one request at a time.
 */
export interface Resolver {
  /** True when a person answers (the time they take is then given back to the run's deadline). */
  readonly interactive: boolean;
  /** Answers one request. `signal` aborts when the request no longer matters. */
  resolve(request: ApprovalRequest, signal: AbortSignal): Promise<ResolverAnswer>;
}

/** The name the runtime's options use for a resolver. */
export type ApprovalResolver = Resolver;

/** The outcome a capability acts on. */
export interface ApprovalResult {
  requestId: string;
  decision: 'allow' | 'deny';
  reason: string;
  /**
   * Milliseconds between the request and its answer. The pool adds this to the run's wall-clock
   * deadline (and pauses the idle watchdog), so time a person takes never times a run out.
   */
  waitedMs: number;
  /** Answered from the session's memory, without asking. */
  remembered: boolean;
  /** Who answered: recorded in the audit log and the transcript. */
  decidedBy: ApprovalDecider;
}

/**
 * Who settled an approval: a person (`user`), the non-interactive resolver (no person to ask), a
 * rule granted earlier in the session, or the wait ending without an answer (the run was
 * cancelled, the session closed, the wait timed out, the prompt failed).
 */
export type ApprovalDecider =
  'user' | 'non-interactive' | 'session' | 'cancelled' | 'closed' | 'timeout' | 'prompt-error';

/** What the broker tells listeners (the UI, and the pool for `approval-*` events). */
export type ApprovalNotice =
  | { type: 'request'; request: ApprovalRequest }
  | { type: 'result'; request: ApprovalRequest; result: ApprovalResult };
