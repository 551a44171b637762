// bench/events-memory: what a task handle holds when its caller never iterates `handle.events`.
// Each round runs TASKS tasks (each streaming a REPLY_CHARS reply in many text deltas, so many
// events) against the fake Messages API and keeps every handle, as a caller keeping its handles
// would; then the host heap is measured after a full GC.
//   - read: `handle.events` read as task() resolves but never iterated, which keeps every event
//     (what every handle did before the channel was made lazy)
//   - unread: `handle.events` never read (the channel is never made; nothing is kept)
// Modes alternate over ROUNDS rounds; medians. Run: npx tsx bench/events-memory.ts
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createRuntime, type TaskHandle } from '../src/index.js';
import { generatedReply, startFakeAnthropic } from '../test/support/fake-anthropic.js';
import { tempProject } from '../test/support/project.js';
import { median, writeResult } from './support/stats.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUNDS = 5;
const TASKS = 8;
const REPLY_CHARS = 400_000;
const DELTA_CHARS = 64;

const server = await startFakeAnthropic({
  responder: () => generatedReply(REPLY_CHARS, { deltaChars: DELTA_CHARS }),
});
const project = await tempProject({ 'README.md': '# bench\n' });
const runtime = await createRuntime({
  cwd: project.dir,
  home: project.home,
  env: { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: server.url },
  agents: { writer: { description: 'writes', prompt: 'You write.', tools: ['Read'] } },
});

/** Heap after a full GC, in MB. */
function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** Runs TASKS tasks, keeps their handles, and returns how much more heap that left held (MB). */
async function round(read: boolean): Promise<number> {
  const before = heapMb();
  const handles: TaskHandle[] = [];
  for (let i = 0; i < TASKS; i++) {
    const handle = await runtime.task({ subagent_type: 'writer', prompt: `write ${i}` });
    if (read) void handle.events; // read, never iterated
    handles.push(handle);
  }
  const outputs = await Promise.all(handles.map((h) => h.result));
  if (outputs.some((o) => o.status !== 'completed')) throw new Error('a bench task did not complete');
  const held = heapMb() - before;
  handles.length = 0;
  return held;
}

const readMb: number[] = [];
const unreadMb: number[] = [];
await round(false); // warm-up: threads, SDK, caches
for (let i = 0; i < ROUNDS; i++) {
  readMb.push(await round(true));
  unreadMb.push(await round(false));
}
await runtime.close();
await server.close();
await project.cleanup();

const result = {
  tasks: TASKS,
  replyChars: REPLY_CHARS,
  deltaChars: DELTA_CHARS,
  rounds: ROUNDS,
  heldMbEventsRead: median(readMb),
  heldMbEventsUnread: median(unreadMb),
  samples: { read: readMb, unread: unreadMb },
};
console.log(
  `handles kept after ${TASKS} tasks of ${REPLY_CHARS} chars: events read but not iterated ${result.heldMbEventsRead.toFixed(1)} MB, never read ${result.heldMbEventsUnread.toFixed(1)} MB (medians of ${ROUNDS})`,
);
console.log(`wrote ${await writeResult('events-memory', result)}`);
