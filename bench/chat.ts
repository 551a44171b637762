// bench/chat: how the chat holds up while 16 agents stream. The shipped chat UI (the bundle `cadre
// chat` loads, with React's production build) runs in this process on a simulated terminal, over
// the compiled runtime and controller, against the fake model server in a process of its own.
// Measured side by side in one run: keystroke-to-screen latency (a key written to the terminal's
// input until a frame showing it is written to its output) with no agent running and while a lead's
// 16 subagents stream; the host event loop's delay (p99) and busy share while they stream, beside
// the same fan-out run with no chat at all; how often the chat redraws. Goals: keystroke p95 <= 50 ms and event-loop p99 <= 20 ms while 16 stream.
// Run: npm run build && npx tsx bench/chat.ts
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { createRuntime } from '../dist/index.js';
import { ChatController } from '../dist/host/chat/controller.js';
import { ApprovalQueue } from '../dist/host/ui/approval-queue.js';
import { quantile, writeResult } from './support/stats.js';

const AGENTS = 16;
const ROUNDS = 3;
const KEYS_IDLE = 40;
const KEYS_STREAMING = 100;
const ALPHABET = 'qzxjkvw';

/** The terminal's input side, as Ink reads it. */
class FakeStdin extends EventEmitter {
  isTTY = true;
  private queue: string[] = [];
  setRawMode() {}
  setEncoding() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read = () => this.queue.shift() ?? null;
  type(data: string) {
    this.queue.push(data);
    this.emit('readable');
  }
}

/** The terminal's output side: records when each frame was written. */
class FakeStdout extends EventEmitter {
  isTTY = true;
  columns = 120;
  rows = 40;
  watchers: { text: string; resolve: (at: number) => void }[] = [];
  writes = 0;
  write = (chunk: string | Uint8Array) => {
    this.writes++;
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    const now = performance.now();
    this.watchers = this.watchers.filter((w) => {
      if (!text.includes(w.text)) return true;
      w.resolve(now);
      return false;
    });
    return true;
  };
  /** Resolves when a write contains `text`. */
  next(text: string): Promise<number> {
    return new Promise((resolve) => this.watchers.push({ text, resolve }));
  }
}

const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-chat-'));
const server = spawn(process.execPath, ['--import', 'tsx', 'bench/support/chat-server.ts', '600', '25'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const [url] = (await once(createInterface({ input: server.stdout }), 'line')) as [string];

const queue = new ApprovalQueue();
const runtime = await createRuntime({
  cwd: root,
  home: root,
  env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url },
  concurrency: AGENTS + 2,
  approvals: queue,
  agents: JSON.stringify({
    lead: { description: 'fans out', prompt: '[lead] fan out', tools: ['Task'] },
    streamer: { description: 'streams a long reply', prompt: '[streamer] stream', tools: ['Read'] },
  }),
});
queue.attach(runtime.approvals);
const controller = new ChatController({ runtime, queue, agent: 'lead', home: root });
let flushes = 0;
controller.store.subscribe(() => flushes++);

// The UI as `cadre chat` loads it: its own bundle, React's production build.
process.env.NODE_ENV = 'production';
const ui = (await import(pathToFileURL(path.resolve('dist/host/ui/chat-ui.mjs')).href)) as {
  runChat(c: unknown, t: unknown): Promise<void>;
};
const stdin = new FakeStdin();
const stdout = new FakeStdout();
const stderr = new FakeStdout();
const chatDone = ui.runChat(controller, { stdin, stdout, stderr, env: process.env });
await new Promise((r) => setTimeout(r, 300));

let typed = '';
/** Types one key and returns how long until a frame showed it. */
async function keystroke(): Promise<number> {
  if (typed.length >= 40) {
    stdin.type('\x15'); // Ctrl+U clears the composer between runs of keys (not measured)
    typed = '';
    await new Promise((r) => setTimeout(r, 30));
  }
  const ch = ALPHABET[typed.length % ALPHABET.length] ?? 'q';
  typed += ch;
  const shown = stdout.next(typed.slice(-8));
  const at = performance.now();
  stdin.type(ch);
  return (await Promise.race([shown, new Promise<number>((r) => setTimeout(() => r(Infinity), 2000))])) - at;
}

async function keystrokes(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await keystroke());
    // A person types a key every 60-140 ms.
    await new Promise((r) => setTimeout(r, 60 + Math.random() * 80));
  }
  return out;
}

const summary = (ms: number[]) => ({
  p50: quantile(ms, 0.5),
  p95: quantile(ms, 0.95),
  max: Math.max(...ms),
  missed: ms.filter((m) => !Number.isFinite(m)).length,
});

const running = () =>
  Object.values(controller.store.getState().rows).filter((r) => r.endedAt === undefined).length;

/** One round: keys with nothing running, then keys while the lead's subagents stream. */
async function round(n: number) {
  const log = (what: string) => process.stderr.write(`round ${n}: ${what}\n`);
  log('keys with nothing running');
  const idle = await keystrokes(KEYS_IDLE);
  stdin.type('\x15');
  typed = '';
  controller.send(`fan out ${AGENTS}`);
  log(`waiting for the lead and its ${AGENTS} subagents`);
  while (running() < AGENTS + 1) await new Promise((r) => setTimeout(r, 20));
  log('keys while they stream');
  await new Promise((r) => setTimeout(r, 500));
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const flushes0 = flushes;
  const started = performance.now();
  const streaming = await keystrokes(KEYS_STREAMING);
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  const cpu = process.cpuUsage(cpu0);
  const out = {
    idle,
    streaming,
    seconds,
    stillStreaming: running(),
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    utilization: performance.eventLoopUtilization(elu0).utilization,
    cpuPercent: ((cpu.user + cpu.system) / 1e6 / seconds) * 100,
    flushesPerS: (flushes - flushes0) / seconds,
  };
  stdin.type('\x15');
  typed = '';
  log(`waiting for the ${running()} still running to end`);
  while (running() > 0) await new Promise((r) => setTimeout(r, 100));
  // The same fan-out with no chat at all (no session, no UI, no keys): what the runtime and the
  // machine alone cost the event loop, for comparison.
  log('the same fan-out without the chat');
  const bare = runtime.run({ subagent_type: 'lead', prompt: `fan out ${AGENTS}` });
  while (runtime.stats().runs < AGENTS + 1) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 500));
  const bareLoop = monitorEventLoopDelay({ resolution: 5 });
  bareLoop.enable();
  const bareElu0 = performance.eventLoopUtilization();
  await new Promise((r) => setTimeout(r, Math.min(out.seconds, 8) * 1000));
  bareLoop.disable();
  await bare;
  return {
    ...out,
    bareLoopP99Ms: bareLoop.percentile(99) / 1e6,
    bareUtilization: performance.eventLoopUtilization(bareElu0).utilization,
  };
}

const rounds: Awaited<ReturnType<typeof round>>[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round(i + 1));
const med = (f: (r: (typeof rounds)[number]) => number) => quantile(rounds.map(f), 0.5);
const streamingP95 = med((r) => quantile(r.streaming, 0.95));
const loopP99 = med((r) => r.loopP99Ms);
const result = {
  agents: AGENTS,
  rounds: ROUNDS,
  note: 'medians over rounds (each: idle keys, then keys while 16 subagents stream) on a shared 2-core machine; the simulated terminal draws nothing, so screen time is the frame being written',
  keystrokeIdleMs: { p50: med((r) => quantile(r.idle, 0.5)), p95: med((r) => quantile(r.idle, 0.95)) },
  keystrokeStreamingMs: { p50: med((r) => quantile(r.streaming, 0.5)), p95: streamingP95 },
  eventLoopDelayP99Ms: loopP99,
  eventLoopUtilization: med((r) => r.utilization),
  withoutChat: {
    note: 'the same 16-agent fan-out run with runtime.run(): no session, no UI, no keys',
    eventLoopDelayP99Ms: med((r) => r.bareLoopP99Ms),
    eventLoopUtilization: med((r) => r.bareUtilization),
  },
  processCpuPercent: med((r) => r.cpuPercent),
  chatStateFlushesPerS: med((r) => r.flushesPerS),
  perRound: rounds.map((r) => ({
    keystrokeIdle: summary(r.idle),
    keystrokeStreaming: summary(r.streaming),
    streamingWindowS: r.seconds,
    agentsStillStreamingAtEnd: r.stillStreaming,
    eventLoopDelayP99Ms: r.loopP99Ms,
    eventLoopDelayMaxMs: r.loopMaxMs,
    withoutChatEventLoopDelayP99Ms: r.bareLoopP99Ms,
  })),
  goals: {
    keystrokeP95Ms: { goal: 50, met: streamingP95 <= 50 },
    eventLoopP99Ms: { goal: 20, met: loopP99 <= 20 },
  },
};
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${await writeResult('chat', result)}`);

stdin.type('\x03');
await new Promise((r) => setTimeout(r, 50));
stdin.type('\x03');
await chatDone;
controller.close();
await runtime.close();
server.stdin?.end();
await rm(root, { recursive: true, force: true });
process.exit(0);
