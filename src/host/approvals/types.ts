// The approval contract: what an `ask` verdict turns into (a request labelled with the asking
// agent), what a resolver answers, and what the caller gets back (including how long it waited).

/** What a capability asks approval for. */
export interface ApprovalInput {
  agentId: string;
  agentType: string;
  parentId?: string;
  depth?: number;
  /** The capability name (`fs.write`, `exec.run`, ...). */
  capability: string;
  /** One line a person can judge: the command, the path, the URL. */
  summary: string;
  /** The policy's reason for asking (it names the mode or rule that would allow the call). */
  reason: string;
  /** Allow rules that would cover the call (the policy's `suggestions`); "allow for this session" remembers them. */
  suggestions?: string[];
  /** Aborts the wait (the run was cancelled or killed): the request is then denied. */
  signal?: AbortSignal;
}

/** A queued request, as resolvers and listeners see it. */
export interface ApprovalRequest extends Omit<ApprovalInput, 'signal'> {
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
}

/** What the broker tells listeners (the UI, and the pool for `approval-*` events). */
export type ApprovalNotice =
  | { type: 'request'; request: ApprovalRequest }
  | { type: 'result'; request: ApprovalRequest; result: ApprovalResult };
