// Trains V8's code caches on real runs; scripts/bundle.mjs runs it last (`node --import tsx
// scripts/train-code-cache.ts`). A cache holds what V8 had compiled when it was made. Made from a
// bundle's top level alone, it left every process and every worker thread to compile the model
// client, the agent loop and the tools again at its first run. Here:
// - the worker bundle runs in this process, and one agent run goes through the host's own
//   capability gateway, file capabilities (on a scratch project) and model channel to a loopback
//   server that answers like the Messages API: Glob, Grep, Read, LS and Task calls, then text.
//   Then the worker's cache is written, holding what that run compiled;
// - `cadre run` runs a lead that fans out to two subagents against the same server. With no cache
//   present, the executable writes its own after the run (scripts/cli-loader.mjs).
// Any failure fails the build: a run this simple must work.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { ApprovalBroker, nonInteractiveResolver } from '../src/host/approvals/index.js';
import { effectHandlers } from '../src/host/capabilities/fs-handlers.js';
import { exposeGateway } from '../src/host/capabilities/gateway.js';
import { serveModelChannel } from '../src/host/capabilities/model-http.js';
import { portEndpoint } from '../src/shared/endpoint.js';
import { ok } from '../src/shared/errors.js';
import { HOST_CREDENTIAL } from '../src/shared/model-wire.js';
import type { ParkTask, ThreadTask } from '../src/shared/park.js';
import { DEFAULT_CAPS, type WorkerRunResult, type WorkerRunSpec } from '../src/shared/run-spec.js';
import type { TaskOutput } from '../src/shared/task.js';
import { SandboxGate } from '../src/host/capabilities/sandbox/gate.js';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const require = createRequire(import.meta.url);
const { cacheFileFor, loadCached } = require(path.join(dist, 'code-cache.cjs')) as {
  cacheFileFor(file: string): string | undefined;
  loadCached(file: string): { exports: Record<string, unknown>; codeCache: string; save(): void };
};

type Block = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown };

/** The SSE body of a reply made of `blocks`, as the Messages API streams it. */
function sse(blocks: Block[]): string {
  const frame = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = { input_tokens: 50, output_tokens: 1 };
  const out = [
    frame('message_start', {
      message: { id: 'msg_train', type: 'message', role: 'assistant', model: 'train', content: [] },
      usage,
    }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      out.push(frame('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      out.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }));
    } else {
      const start = { type: 'tool_use', id: `toolu_train_${index}`, name: block.name, input: {} };
      out.push(frame('content_block_start', { index, content_block: start }));
      const json = JSON.stringify(block.input);
      out.push(
        frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }),
      );
      out.push(
        frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json } }),
      );
    }
    out.push(frame('content_block_stop', { index }));
  });
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  out.push(frame('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage }));
  out.push(frame('message_stop', {}));
  return out.join('');
}

const task = (i: number): Block => ({
  type: 'tool_use',
  name: 'Task',
  input: { description: `part ${i}`, prompt: `look at part ${i}`, subagent_type: 'sub' },
});

/** What each agent answers, by its system prompt's marker and how many turns it has had. */
function reply(system: string, turn: number): Block[] {
  if (system.startsWith('[lead]')) return turn === 0 ? [task(0), task(1)] : [{ type: 'text', text: 'done' }];
  if (turn === 0)
    return [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', name: 'Glob', input: { pattern: 'src/**/*.ts' } },
      { type: 'tool_use', name: 'Grep', input: { pattern: 'export', output_mode: 'content', '-n': true } },
      { type: 'tool_use', name: 'Read', input: { file_path: 'src/a.ts' } },
      { type: 'tool_use', name: 'LS', input: { path: '.' } },
    ];
  if (turn === 1 && system.startsWith('[train]')) return [task(0)];
  return [{ type: 'text', text: 'src/a.ts exports a.' }];
}

async function startServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as {
        system?: string | { text: string }[];
        messages: { role: string }[];
      };
      const system =
        typeof parsed.system === 'string' ? parsed.system : (parsed.system ?? []).map((b) => b.text).join('');
      const turn = parsed.messages.filter((m) => m.role === 'assistant').length;
      const marker = /^\[(lead|sub|train)\]/.exec(system)?.[0] ?? '';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sse(reply(marker, turn)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** One agent run of the worker bundle in this thread, through the host's real channels. */
async function trainWorker(url: string, project: string): Promise<void> {
  const bundle = path.join(dist, 'worker-bundle', 'worker.cjs');
  const loaded = loadCached(bundle);
  const run = loaded.exports.default as (
    input: ThreadTask<unknown> | ParkTask<unknown>,
  ) => Promise<WorkerRunResult>;
  const spec: WorkerRunSpec = {
    agentId: 'train-1',
    depth: 0,
    agentType: 'train',
    description: 'code cache training',
    system: '[train] Answer from the project.',
    prompt: 'What does src/a.ts export?',
    history: [],
    tools: ['Glob', 'Grep', 'Read', 'LS', 'Task'],
    extraTools: [],
    model: {
      provider: 'anthropic',
      model: 'train',
      baseURL: url,
      apiKey: HOST_CREDENTIAL,
      maxTokens: 1024,
      streamIdleTimeoutMs: 10_000,
      maxRetries: 0,
    },
    maxTurns: 5,
    permissionMode: 'default',
    cwd: project,
    caps: DEFAULT_CAPS,
  };
  const [caps, control, model] = [new MessageChannel(), new MessageChannel(), new MessageChannel()];
  const stop = new AbortController();
  const output: TaskOutput = {
    agentId: 'sub-1',
    agentType: 'sub',
    status: 'completed',
    result: 'part done',
    usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    model: 'train',
    durationMs: 1,
    turns: 1,
    toolCalls: 0,
    transcriptPath: path.join(project, 'sub-1.jsonl'),
  };
  const handlers = {
    ...effectHandlers({
      agentId: spec.agentId,
      agentType: spec.agentType,
      projectDir: project,
      extraRoots: [],
      homeDir: project,
      mode: 'default',
      rules: { allow: [], ask: [], deny: [] },
      records: [],
      protect: [],
      sandbox: new SandboxGate(
        { mode: 'off', allowRead: [], denyRead: [], protect: [], warnings: [] },
        () => undefined,
      ),
      approvals: new ApprovalBroker(nonInteractiveResolver()),
      audit: undefined,
      signal: stop.signal,
      pauseClock: () => () => undefined,
    }),
    'events.emit': () => Promise.resolve(ok(null)),
    'agents.task': () => Promise.resolve(ok(output)),
  };
  const gateway = exposeGateway(portEndpoint(caps.port1), handlers, [
    'fs.glob',
    'fs.readMany',
    'fs.read',
    'fs.stat',
    'fs.list',
    'events.emit',
    'agents.task',
  ]);
  const channel = serveModelChannel(portEndpoint(model.port1), {
    agentId: spec.agentId,
    agentType: spec.agentType,
    baseURL: url,
    secret: 'train-key',
    projectDir: project,
    mode: 'default',
    audit: undefined,
  });
  try {
    const result = await run({ spec, caps: caps.port2, control: control.port2, model: model.port2 });
    if (result.status !== 'completed' || result.toolCalls < 5)
      throw new Error(`the training run ended ${result.status} after ${result.toolCalls} tool calls`);
  } finally {
    stop.abort();
    gateway.close();
    channel.close();
    for (const c of [caps, control, model]) c.port1.close();
  }
  loaded.save();
}

/** `cadre run` fanning out to two subagents; the executable writes the CLI's cache after it. */
async function trainCli(url: string, project: string): Promise<void> {
  const agents = JSON.stringify({
    lead: { description: 'lead', prompt: '[lead] Split the work.', tools: ['Task'] },
    sub: {
      description: 'sub',
      prompt: '[sub] Answer from the project.',
      tools: ['Glob', 'Grep', 'Read', 'LS'],
    },
  });
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(dist, 'host', 'cli', 'cadre.mjs'), 'run', 'lead', 'What is in src?', '--agents', agents],
      {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: project,
          ANTHROPIC_API_KEY: 'train-key',
          ANTHROPIC_BASE_URL: url,
        },
      },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`cadre run failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}

const project = await mkdtemp(path.join(os.tmpdir(), 'cadre-train-'));
const { server, url } = await startServer();
try {
  await mkdir(path.join(project, 'src'));
  await writeFile(path.join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(project, 'src', 'b.ts'), 'export function b(): number {\n  return 2;\n}\n');
  await mkdir(path.join(project, '.cadre'));
  await writeFile(path.join(project, '.cadre', 'config.json'), JSON.stringify({ prestartThreads: 2 }));
  await trainWorker(url, project);
  await trainCli(url, project);
  for (const bundle of [
    path.join(dist, 'worker-bundle', 'worker.cjs'),
    path.join(dist, 'host', 'cli', 'cadre.cjs'),
  ]) {
    const cache = cacheFileFor(bundle);
    if (cache !== undefined && !existsSync(cache)) throw new Error(`no code cache was written for ${bundle}`);
  }
} finally {
  server.close();
  await rm(project, { recursive: true, force: true });
}
