// The approval queue that `ask` verdicts wait on. Requests from every agent are answered one at a
// time by one resolver (a person sees one prompt at a time), each labelled with the asking agent.
// A wait ends in allow or deny, never hangs past a cancelled run or a closed session, and reports
// how long it took so the pool can give that time back to the run's deadline.
import { randomUUID } from 'node:crypto';
import type {
  ApprovalDecider,
  ApprovalInput,
  ApprovalNotice,
  ApprovalRequest,
  ApprovalResult,
  Resolver,
  ResolverAnswer,
} from './types.js';

/** Options for a broker. */
export interface ApprovalBrokerOptions {
  clock?: () => number;
  /** Deny a request nobody answered within this many ms (default: wait as long as the run lives). */
  maxWaitMs?: number;
  newId?: () => string;
}

interface Entry {
  request: ApprovalRequest;
  coveredBy: ApprovalInput['coveredBy'];
  signal: AbortSignal | undefined;
  controller: AbortController;
  done: boolean;
  resolve: (result: ApprovalResult) => void;
  cleanup: () => void;
}

/** Serialises approval requests onto one resolver, with "allow for this session" memory. */
export class ApprovalBroker {
  private readonly clock: () => number;
  private readonly newId: () => string;
  private readonly queue: Entry[] = [];
  private active: Entry | undefined;
  private readonly listeners = new Set<(notice: ApprovalNotice) => void>();
  private readonly allowedRules = new Set<string>();
  private readonly deniedCalls = new Set<string>();
  private closedReason: string | undefined;

  constructor(
    private readonly resolver: Resolver,
    private readonly options: ApprovalBrokerOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
    this.newId = options.newId ?? (() => `apr_${randomUUID()}`);
  }

  /** True when a person answers (see `Resolver.interactive`). */
  get interactive(): boolean {
    return this.resolver.interactive;
  }

  /** Asks for approval and waits for the answer. Never rejects. */
  request(input: ApprovalInput): Promise<ApprovalResult> {
    const { signal, coveredBy, id, ...fields } = input;
    const request: ApprovalRequest = { ...fields, id: id ?? this.newId(), requestedAt: this.clock() };
    return new Promise<ApprovalResult>((resolve) => {
      const entry: Entry = {
        request,
        coveredBy,
        signal,
        controller: new AbortController(),
        done: false,
        resolve,
        cleanup: () => {},
      };
      this.emit({ type: 'request', request });
      if (this.closedReason !== undefined)
        return this.settle(entry, 'deny', this.closedReason, { by: 'closed' });
      if (signal?.aborted)
        return this.settle(entry, 'deny', 'the run was cancelled before anyone answered', {
          by: 'cancelled',
        });
      if (this.answerFromMemory(entry)) return;
      const onAbort = () =>
        this.settle(entry, 'deny', 'the run was cancelled while waiting for approval', { by: 'cancelled' });
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.cleanup = () => signal?.removeEventListener('abort', onAbort);
      this.queue.push(entry);
      this.pump();
    });
  }

  /** Requests waiting or being answered, oldest first. */
  pending(): ApprovalRequest[] {
    return [...(this.active ? [this.active.request] : []), ...this.queue.map((e) => e.request)];
  }

  /** Allow rules granted "for this session"; pass them to the policy as extra allow rules. */
  sessionRules(): string[] {
    return [...this.allowedRules];
  }

  /** Subscribes to requests and results; returns the unsubscribe function. */
  on(listener: (notice: ApprovalNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Denies everything pending and every later request. */
  close(reason = 'the session is closing'): void {
    this.closedReason = reason;
    for (const entry of [...this.queue, ...(this.active ? [this.active] : [])])
      this.settle(entry, 'deny', reason, { by: 'closed' });
  }

  private emit(notice: ApprovalNotice): void {
    for (const listener of this.listeners) {
      try {
        listener(notice);
      } catch {
        // A broken listener must not stall approvals.
      }
    }
  }

  private callKey(r: ApprovalRequest): string {
    return `${r.capability}\0${r.summary}`;
  }

  /** Whether the session's "always" rules cover a request (the policy's judgement when it gave one). */
  private covered(entry: Entry): boolean {
    if (this.allowedRules.size === 0) return false;
    if (entry.coveredBy) {
      try {
        return entry.coveredBy([...this.allowedRules]);
      } catch {
        // A check that fails covers nothing: the person is asked.
        return false;
      }
    }
    const rules = entry.request.suggestions ?? [];
    return rules.length > 0 && rules.every((rule) => this.allowedRules.has(rule));
  }

  private answerFromMemory(entry: Entry): boolean {
    const r = entry.request;
    if (this.deniedCalls.has(this.callKey(r))) {
      this.settle(entry, 'deny', 'denied earlier in this session', { by: 'session', remembered: true });
      return true;
    }
    if (this.covered(entry)) {
      const rules = [...this.allowedRules].join(', ');
      this.settle(entry, 'allow', `allowed for this session (${rules})`, { by: 'session', remembered: true });
      return true;
    }
    return false;
  }

  /** After an "always" grant: every queued request it covers is answered now, not when it reaches the head. */
  private sweep(): void {
    for (const entry of [...this.queue]) if (!entry.done) this.answerFromMemory(entry);
  }

  private pump(): void {
    while (this.active === undefined) {
      const entry = this.queue.shift();
      if (entry === undefined) return;
      if (entry.done || this.answerFromMemory(entry)) continue;
      this.active = entry;
      void this.ask(entry);
    }
  }

  private async ask(entry: Entry): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = this.options.maxWaitMs;
    const timeout = new Promise<ResolverAnswer>((resolve) => {
      if (limit !== undefined) {
        timer = setTimeout(
          () => resolve({ decision: 'deny', reason: `no answer within ${Math.round(limit / 1000)} s` }),
          limit,
        );
      }
    });
    let answer: ResolverAnswer;
    let by: ApprovalDecider = this.resolver.interactive ? 'user' : 'non-interactive';
    try {
      answer = await Promise.race([
        this.resolver.resolve(entry.request, entry.controller.signal),
        timeout.then((late) => {
          by = 'timeout';
          return late;
        }),
      ]);
    } catch (error) {
      by = 'prompt-error';
      answer = {
        decision: 'deny',
        reason: `the approval prompt failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    } finally {
      if (timer) clearTimeout(timer);
    }
    const decision = answer?.decision === 'allow' ? 'allow' : 'deny';
    const reason =
      typeof answer?.reason === 'string' && answer.reason !== ''
        ? answer.reason
        : decision === 'allow'
          ? 'approved'
          : 'not approved';
    this.settle(entry, decision, reason, { by, ...(answer?.scope ? { scope: answer.scope } : {}) });
  }

  private settle(
    entry: Entry,
    decision: 'allow' | 'deny',
    reason: string,
    how: { by: ApprovalDecider; scope?: 'once' | 'session'; remembered?: boolean },
  ): void {
    const { scope, remembered = false } = how;
    if (entry.done) return;
    entry.done = true;
    entry.cleanup();
    entry.controller.abort();
    const index = this.queue.indexOf(entry);
    if (index !== -1) this.queue.splice(index, 1);
    if (scope === 'session' && decision === 'allow')
      for (const rule of entry.request.suggestions ?? []) this.allowedRules.add(rule);
    if (scope === 'session' && decision === 'deny') this.deniedCalls.add(this.callKey(entry.request));
    const result: ApprovalResult = {
      requestId: entry.request.id,
      decision,
      reason,
      waitedMs: Math.max(0, this.clock() - entry.request.requestedAt),
      remembered,
      decidedBy: how.by,
    };
    this.emit({ type: 'result', request: entry.request, result });
    entry.resolve(result);
    if (scope === 'session' && decision === 'allow') this.sweep();
    if (this.active === entry) {
      this.active = undefined;
      this.pump();
    }
  }
}
