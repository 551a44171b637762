// A chat for component tests: the real runtime against the fake Messages API, the real controller
// and approval queue, and the real Ink app rendered by ink-testing-library.
import { render } from 'ink-testing-library';
import { ChatController } from '../../../src/host/chat/controller.js';
import { ApprovalQueue } from '../../../src/host/ui/approval-queue.js';
import { ChatApp } from '../../../src/host/ui/chat/app.js';
import { startHarness, type AgentScript, type Harness } from '../agents/harness.js';

/** A rendered chat. */
export interface ChatHarness {
  harness: Harness;
  controller: ChatController;
  app: ReturnType<typeof render>;
  exited: () => boolean;
  /** Polls the last frame until `pattern` shows. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Types text one key at a time, letting Ink take each. */
  type(text: string): Promise<void>;
  /** Sends one raw key sequence. */
  press(sequence: string): Promise<void>;
  close(): Promise<void>;
}

const tick = (ms = 15) => new Promise((r) => setTimeout(r, ms));

/** Starts a chat whose main agent is `agent`, scripted like the delegation tests. */
export async function startChat(
  scripts: Record<string, AgentScript>,
  defs: Record<string, Record<string, unknown>>,
  options: {
    agent: string;
    editFile?: (file: string) => Promise<void>;
    files?: Record<string, string>;
    /** The approval keys' grace (default: the shipped one). */
    graceMs?: number;
  },
): Promise<ChatHarness> {
  const queue = new ApprovalQueue(options.graceMs !== undefined ? { graceMs: options.graceMs } : {});
  const harness = await startHarness(scripts, defs, {
    approvals: queue,
    ...(options.files ? { files: options.files } : {}),
  });
  queue.attach(harness.runtime.approvals);
  const controller = new ChatController({
    runtime: harness.runtime,
    queue,
    agent: options.agent,
    home: `${harness.dir}/../home`,
    intervalMs: 20,
  });
  let exited = false;
  const app = render(
    <ChatApp
      controller={controller}
      editFile={options.editFile ?? (() => Promise.resolve())}
      onExit={() => (exited = true)}
    />,
  );
  const frame = () => app.lastFrame() ?? '';
  return {
    harness,
    controller,
    app,
    exited: () => exited,
    async waitFor(pattern, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (pattern.test(frame())) return frame();
        await tick(20);
      }
      throw new Error(`timed out waiting for ${String(pattern)}; the last frame was:\n${frame()}`);
    },
    async type(text) {
      for (const ch of text) {
        app.stdin.write(ch);
        await tick();
      }
    },
    async press(sequence) {
      app.stdin.write(sequence);
      await tick();
    },
    async close() {
      app.unmount();
      controller.close();
      await harness.close();
    },
  };
}
