// The chat session behind the Ink app: turns of the main agent (each resumes the last, so the
// conversation carries on), @mention runs, background runs, cancelling, and what the slash
// commands show. It owns no terminal: the app draws its store and the approval queue and calls
// these methods, so everything here runs (and is tested) without Ink.
import type { AgentEvent } from '../../shared/events.js';
import type { TaskOutput } from '../../shared/task.js';
import type { Runtime, Session, TaskHandle } from '../runtime.js';
import type { ApprovalQueue } from '../ui/approval-queue.js';
import { runningBelow, sessionTasks, type TaskRow } from '../ui/agent-rows.js';
import { parseChatInput, type ChatInput } from '../ui/chat-input.js';
import { initialChat, type ChatItem } from '../ui/chat-state.js';
import { ChatStore } from '../ui/chat-store.js';
import type { AgentChoice } from '../ui/composer-model.js';
import { draftFromReply } from './agent-files.js';
import { conversationItems } from './resumed.js';
import { draftPrompt, helpText, permissionsText } from './chat-text.js';
import { recordSession, sessionsIndexPath, type ChatSessionRecord } from './sessions-index.js';

export type { TaskRow } from '../ui/agent-rows.js';

/** How a chat starts. */
export interface ChatOptions {
  runtime: Runtime;
  /** The approval queue the runtime was created with. */
  queue: ApprovalQueue;
  /** The main agent's definition name. */
  agent: string;
  /** The home directory (the user scope of `/agents`). */
  home: string;
  /** A session to continue (`--resume`). */
  resume?: ChatSessionRecord;
  /** Flush interval of the store (ms). */
  intervalMs?: number;
}

/** Messages of a resumed conversation shown again at start, at most. */
const RESUMED_ITEMS = 20;

/** One chat session. */
export class ChatController {
  readonly store: ChatStore;
  readonly queue: ApprovalQueue;
  readonly runtime: Runtime;
  readonly agent: string;
  readonly home: string;
  private readonly session: Session;
  private current: TaskHandle | undefined;
  private mainId: string | undefined;
  private transcript: string | undefined;
  private closed = false;

  constructor(options: ChatOptions) {
    this.runtime = options.runtime;
    this.queue = options.queue;
    this.agent = options.agent;
    this.home = options.home;
    this.store = new ChatStore(initialChat(), {
      ...(options.intervalMs ? { intervalMs: options.intervalMs } : {}),
    });
    this.session = this.runtime.session({ onEvent: (event) => this.onEvent(event) });
    if (options.resume) {
      this.mainId = options.resume.agentId;
      this.transcript = options.resume.transcriptPath;
      this.store.dispatch({ type: 'main', agentId: options.resume.agentId }, true);
    }
  }

  /** Shows the last messages of a resumed conversation. */
  async showResumed(): Promise<void> {
    if (!this.transcript) return;
    const items = await conversationItems(this.transcript);
    if (!items) return this.info('error', `could not read the resumed transcript ${this.transcript}`);
    for (const item of items.slice(-RESUMED_ITEMS)) this.info(item.kind, item.text);
    this.info('notice', `resumed ${this.mainId ?? ''} (${items.length} messages); new messages continue it`);
  }

  private onEvent(event: AgentEvent): void {
    // A subagent's streamed text is in its transcript; the chat shows only the main agent's. With
    // 16 agents streaming these are most events: they are not even queued.
    if (event.type === 'text-delta' && event.agentId !== this.mainId) return;
    // A request for approval and a run's end are drawn at once; the rest is batched.
    this.store.dispatch(
      { type: 'event', event },
      event.type === 'approval-request' || event.type === 'agent-end',
    );
  }

  /** Adds a message to the scrollback. */
  info(kind: ChatItem['kind'], text: string, title?: string): void {
    this.store.dispatch({ type: 'item', kind, text, ...(title !== undefined ? { title } : {}) }, true);
  }

  /** Agents the @ picker offers. */
  agentChoices(): AgentChoice[] {
    return this.runtime.registry.agents.map((a) => ({ name: a.name, description: a.description }));
  }

  /** Handles a submitted line; the app acts on what it returns for /agents, /tasks and /exit. */
  submit(text: string): ChatInput {
    const input = parseChatInput(
      text,
      this.runtime.registry.agents.map((a) => a.name),
    );
    switch (input.kind) {
      case 'error':
        this.info('error', input.message);
        break;
      case 'prompt':
        this.send(input.text);
        break;
      case 'mention':
        void this.mention(input.agent, input.task);
        break;
      case 'slash':
        if (input.command === 'help') this.info('info', helpText(), '/help');
        if (input.command === 'permissions')
          this.info('info', permissionsText(this.runtime, this.agent), '/permissions');
        break;
    }
    return input;
  }

  /** Sends a message to the main agent, after the turn in progress when there is one. */
  send(prompt: string): void {
    if (this.store.getState().running || this.current) {
      this.store.dispatch({ type: 'queue', prompt }, true);
      this.info('notice', 'queued: it goes to the agent when the current turn ends');
      return;
    }
    void this.turn(prompt);
  }

  private async turn(prompt: string): Promise<void> {
    this.store.dispatch({ type: 'turn-start', prompt }, true);
    let output: TaskOutput | undefined;
    try {
      // The session's onEvent feeds the chat: the handle keeps no events of its own.
      this.current = await this.session.task(
        {
          subagent_type: this.agent,
          prompt,
          // The tree's row for the turn says what it works on.
          description: prompt.replace(/\s+/g, ' ').slice(0, 80),
          ...(this.mainId ? { resume: this.mainId } : {}),
        },
        { events: false },
      );
      const first = this.mainId === undefined;
      this.mainId = this.current.agentId;
      // Before any of its text: the launch returns before the worker has streamed anything.
      this.store.dispatch({ type: 'main', agentId: this.mainId });
      output = await this.current.result;
      this.transcript = output.transcriptPath;
      if (first) await this.remember(output);
    } catch (error) {
      this.info(
        'error',
        `the turn could not start: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.current = undefined;
    }
    this.store.dispatch({ type: 'turn-end', ...(output ? { output } : {}) }, true);
    this.next();
  }

  private async remember(output: TaskOutput): Promise<void> {
    await recordSession(sessionsIndexPath(this.runtime.records.dir), {
      at: Date.now(),
      agentId: output.agentId,
      agentType: this.agent,
      transcriptPath: output.transcriptPath,
    }).catch(() => undefined);
  }

  private next(): void {
    if (this.closed) return;
    const [prompt] = this.store.getState().queued;
    if (prompt === undefined) return;
    this.store.dispatch({ type: 'dequeue' }, true);
    void this.turn(prompt);
  }

  /** Runs `agent` on `task` directly; its result is added to the chat when it ends. */
  async mention(agent: string, task: string): Promise<void> {
    this.info('user', `@${agent} ${task}`);
    try {
      await this.session.task(
        { subagent_type: agent, prompt: task, description: task.slice(0, 80) },
        { events: false },
      );
    } catch (error) {
      this.info('error', `@${agent}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Esc: interrupts the main turn only (background runs go on). True when there was one. */
  interrupt(): boolean {
    if (!this.current) return false;
    this.current.stop();
    return true;
  }

  /** Running children (any depth) of an agent, for the confirmation before cancelling it. */
  runningChildren(agentId: string): number {
    return runningBelow(this.store.getState().rows, agentId);
  }

  /** Cancels one agent (and its subtree). */
  cancelAgent(agentId: string): boolean {
    return this.runtime.stop(agentId);
  }

  /** Background and @mention runs, newest first. */
  tasks(): TaskRow[] {
    return sessionTasks(this.store.getState().rows, this.mainId);
  }

  /**
   * Asks the model (the main agent, read-only, in a run of its own) to draft an agent definition
   * from a one-line description. The draft is only text: it is checked and shown before any save.
   */
  async draftAgent(description: string): Promise<string> {
    const handle = await this.session.task(
      {
        subagent_type: this.agent,
        description: 'draft an agent definition',
        permission_mode: 'plan',
        prompt: draftPrompt(description),
      },
      { events: false },
    );
    this.store.dispatch({ type: 'quiet', agentId: handle.agentId });
    const out = await handle.result;
    if (out.status !== 'completed')
      throw new Error(`drafting ended ${out.status}${out.error ? `: ${out.error.message}` : ''}`);
    const draft = draftFromReply(out.result);
    if (!draft) throw new Error('the reply held no agent file (no front matter); try the template instead');
    return draft;
  }

  /** Reads every agent source again; returns a one-line summary. */
  async reloadAgents(): Promise<string> {
    const registry = await this.runtime.reloadAgents();
    const problems = registry.errors.length;
    return `${registry.agents.length} agents loaded${problems > 0 ? `, ${problems} with errors (cadre agents validate)` : ''}`;
  }

  /** The main agent's transcript, once a turn ran. */
  transcriptPath(): string | undefined {
    return this.transcript;
  }

  /** Runs still going in the session besides the main turn. */
  runningCount(): number {
    return Object.values(this.store.getState().rows).filter((r) => r.endedAt === undefined).length;
  }

  /**
   * Ends the session: every run still going is cancelled and pending approvals are denied. The
   * runtime stays open for its owner to close.
   */
  close(): void {
    this.closed = true;
    this.session.stop();
    this.runtime.approvals.close('the chat is closing');
    this.queue.close();
    this.store.close();
  }
}
