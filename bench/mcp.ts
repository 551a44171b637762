// bench/mcp: what MCP through cadre costs, measured side by side in one run.
//   1. Call round trip: an agent thread's mcp.call through the capability port, the one policy
//      function, the audit log and the hub, against the SDK client calling the same server
//      directly (goal ≤ 1.2×). Batches alternate between the ways; medians over every call. The
//      `floor` way crosses the same thread boundary with none of cadre's checks (worker → port →
//      the hub's connection → port → worker): what the design's thread hop costs on its own.
//   2. Host CPU per call: the mcp.call handler (parse, policy, audit, result) over a connection
//      that answers at once, so wake-ups and the server drop out: cadre's own work per call.
//   3. Memory: 16 agents sharing one stdio server against one agent, each in a fresh CLI process,
//      the same fan-out without MCP as the baseline (goal: MCP's share grows by ≤ 10 MB).
// Run: npm run build && npx tsx bench/mcp.ts [--only roundTrip,cpu,memory] [--build label=dir]...
//   --build (repeatable) measures parts 1 and 2 for each build, side by side in one process: `dir`
//   a copy of dist/ inside this checkout (e.g. .scratch/before/dist); without it, the source.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { AuditLog } from '../src/host/capabilities/audit.js';
import type { EffectContext } from '../src/host/capabilities/effect-context.js';
import type { McpConnection } from '../src/host/capabilities/mcp/connection.js';
import type { RunMcpTool } from '../src/host/capabilities/mcp/run-mcp-tools.js';
import type { PolicyRules } from '../src/host/capabilities/policy.js';
import type { Capabilities } from '../src/shared/capabilities.js';
import { startFakeAnthropic, systemText, textReply, toolUseReply } from '../test/support/fake-anthropic.js';
import { runCli } from './support/cli.js';
import { buildsFromArgs, loadMcpBuild, type McpBuild } from './support/mcp-build.js';
import { median, quantile, writeResult } from './support/stats.js';

const SERVER = path.resolve('test', 'fixtures', 'mcp', 'stdio-server.mjs');
const root = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-mcp-'));
const home = path.join(root, 'home');
await mkdir(home, { recursive: true });
const builds = await Promise.all(
  buildsFromArgs(process.argv).map(({ label, dist }) => loadMcpBuild(label, dist)),
);

// Part 1: the call round trip, made in interleaved batches in several ways: the SDK client
// directly; an agent thread reaching the (first build's) hub over its port with nothing in between
// (`floor`: the floor of any design with the thread boundary); the hub's connection; and for each
// build its mcp.call handler in the host's own thread (parse, policy, audit, hub, result) and
// an agent thread calling the capability over its port. With one build the ways are named
// `handler` and `capability`; with several, `capability:<label>` and so on. Every way calls the
// same server process through the same hub, so builds differ only in their own code.
const RULES: PolicyRules = { allow: ['mcp__fixture'], ask: [], deny: [] };
const wayName = (way: string, build: McpBuild) => (builds.length === 1 ? way : `${way}:${build.label}`);

/** The hub every way shares: the first build's, one server process (two would be scheduled apart). */
async function sharedHub(build: McpBuild, tool: string) {
  const mcp = new build.McpRuntime({
    configured: {
      fixture: {
        name: 'fixture',
        config: { type: 'stdio', command: process.execPath, args: [SERVER, 'hub'], sandbox: false },
        scope: 'user',
        origin: 'bench',
      },
    },
    env: {},
    cwd: root,
    home,
    sandboxMode: 'auto',
    rules: RULES,
  });
  const name = `mcp__fixture__${tool}`;
  const agent = { name: 'bench', source: 'cli' as const, path: 'bench', tools: [name] };
  const grant = { mode: 'default' as const, deniedTools: [] };
  const tools = await mcp.tools(
    await mcp.plan(agent as Parameters<typeof mcp.plan>[0], grant),
    grant,
    new AbortController().signal,
  );
  const entry = tools.table.get(name);
  if (!entry) throw new Error(`${name} was not offered`);
  return { mcp, name, entry, table: tools.table };
}

/** One build's side of the round trip over the shared hub's tools: its audit log, handler and gateway. */
async function buildSide(build: McpBuild, table: ReadonlyMap<string, RunMcpTool>) {
  const audit = await build.createAuditLog(path.join(root, `audit-${build.label}.jsonl`));
  const run = new AbortController();
  const handler = build.mcpCallHandler(benchContext(build, RULES, audit, run.signal), table);
  const channel = new MessageChannel();
  const gateway = build.exposeGateway(build.portEndpoint(channel.port1), { 'mcp.call': handler }, [
    'mcp.call',
  ]);
  const close = async () => {
    gateway.close();
    run.abort();
    await audit.close();
  };
  return { handler, port: channel.port2, close };
}

async function roundTrip(
  tool: 'echo' | 'slow',
  input: Record<string, unknown>,
  calls: number,
  rounds: number,
) {
  const direct = new Client({ name: 'bench', version: '1' });
  // Spawned as a user of the SDK spawns a server. Not through `setsid` (a session of its own, as
  // the hub's servers have for their process group): measured in this process, that made every
  // direct call 30–60 µs slower than the same call to a plainly spawned server, a baseline that
  // flattered cadre. The hub's server, detached, measures no slower than a plain one.
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, 'direct'] }));
  const hub = await sharedHub(builds[0]!, tool);
  const sides = await Promise.all(builds.map((build) => buildSide(build, hub.table)));
  // The floor: the same port and hub, none of cadre's checks. Each call has its own signal, as
  // cadre's do: the SDK leaves a listener on the signal it is given, and Node's EventTarget checks
  // every listener already there when one is added, so a shared signal slows each call a little more.
  const floor: Capabilities['mcp.call'] = async (raw) => {
    const result = await hub.entry.connection.call(tool, raw.input, {
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    });
    return {
      ok: true,
      value: { content: JSON.stringify(result.content), isError: result.isError, truncated: false },
    };
  };
  const floorChannel = new MessageChannel();
  const floorGateway = builds[0]!.exposeGateway(
    builds[0]!.portEndpoint(floorChannel.port1),
    { 'mcp.call': floor },
    ['mcp.call'],
  );
  const ports: Record<string, MessagePort> = { floor: floorChannel.port2 };
  builds.forEach((build, i) => (ports[wayName('capability', build)] = sides[i]!.port));
  const worker = new Worker(new URL('./support/mcp-roundtrip-worker.mjs', import.meta.url), {
    workerData: { ports },
    transferList: Object.values(ports),
  });
  const timed = async (n: number, call: () => Promise<unknown>) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await call();
      times.push(performance.now() - t);
    }
    return times;
  };
  const inWorker = async (n: number, port: string) => {
    worker.postMessage({ n, tool: hub.name, input, port });
    return (await new Promise((resolve) => worker.once('message', resolve))) as number[];
  };
  const ways: Record<string, (n: number) => Promise<number[]>> = {
    sdk: (n) => timed(n, () => direct.callTool({ name: tool, arguments: input })),
    hub: (n) =>
      timed(n, () =>
        hub.entry.connection.call(tool, input, { timeoutMs: 10_000, signal: new AbortController().signal }),
      ),
    floor: (n) => inWorker(n, 'floor'),
  };
  builds.forEach((build, i) => {
    const side = sides[i]!;
    ways[wayName('handler', build)] = (n) => timed(n, () => side.handler({ tool: hub.name, input }));
    ways[wayName('capability', build)] = (n) => inWorker(n, wayName('capability', build));
  });
  const names = Object.keys(ways);
  for (const way of names) await ways[way]!(Math.min(100, calls));
  const all: Record<string, number[]> = Object.fromEntries(names.map((way) => [way, []]));
  for (let r = 0; r < rounds; r++) {
    // Each round in another order, so no way always runs right after the same other one.
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const way of order) all[way]!.push(...(await ways[way]!(calls)));
  }
  await worker.terminate();
  floorGateway.close();
  for (const side of sides) await side.close();
  await hub.mcp.close();
  await direct.close();
  const us = (way: string) => median(all[way]!) * 1000;
  return {
    tool,
    calls: calls * rounds,
    medianUs: Object.fromEntries(names.map((w) => [w, us(w)])),
    p99Us: Object.fromEntries(names.map((w) => [w, quantile(all[w]!, 0.99) * 1000])),
    floorRatio: us('floor') / us('sdk'),
    builds: Object.fromEntries(
      builds.map((build) => {
        const capability = us(wayName('capability', build));
        return [
          build.label,
          {
            ratio: capability / us('sdk'),
            overheadUs: capability - us('sdk'),
            overFloorUs: capability - us('floor'),
          },
        ];
      }),
    ),
  };
}

/** The EffectContext of the benchmark's one run: the rules given, nobody to ask. */
function benchContext(
  build: McpBuild,
  rules: PolicyRules,
  audit: AuditLog,
  signal: AbortSignal,
): EffectContext {
  return {
    agentId: 'bench-1',
    agentType: 'bench',
    projectDir: root,
    extraRoots: [],
    homeDir: home,
    mode: 'default',
    rules,
    records: [],
    protect: [],
    sandbox: new build.SandboxGate(
      { mode: 'auto', allowRead: [], denyRead: [], protect: [], warnings: [] },
      () => undefined,
    ),
    approvals: new build.ApprovalBroker(build.nonInteractiveResolver()),
    audit,
    signal,
    pauseClock: () => () => undefined,
  };
}

// Part 2: host CPU per call. Each build's handler over a stand-in connection that answers at once
// (no process, no wake-up), in batches, the builds taking turns; the median batch's CPU time (the
// process's, which the load of a shared machine disturbs less than wall time) and wall time per
// call. The audit log's writes (batched, every 50 ms) fall between batches, as between calls.
async function hostCpu(batches: number, perBatch: number) {
  const answer = { content: [{ type: 'text', text: `echo: ${'x'.repeat(64)}` }], isError: false };
  const connection = { call: () => Promise.resolve(answer) } as unknown as McpConnection;
  const name = 'mcp__fixture__echo';
  const table = new Map([
    [
      name,
      {
        name,
        server: 'fixture',
        tool: 'echo',
        readOnly: true,
        connection,
        timeoutMs: 10_000,
        maxOutputChars: 100_000,
      },
    ],
  ]);
  const run = new AbortController();
  const sides = await Promise.all(
    builds.map(async (build) => {
      const audit = await build.createAuditLog(path.join(root, `cpu-audit-${build.label}.jsonl`));
      const handler = build.mcpCallHandler(benchContext(build, RULES, audit, run.signal), table);
      return { build, audit, handler, wall: [] as number[], cpu: [] as number[] };
    }),
  );
  const input = { text: 'x'.repeat(64) };
  for (let b = 0; b < batches + 2; b++) {
    for (const side of b % 2 === 0 ? sides : [...sides].reverse()) {
      const t = performance.now();
      const used = process.cpuUsage();
      for (let i = 0; i < perBatch; i++) {
        const envelope = await side.handler({ tool: name, input });
        if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
      }
      // The batch's audit lines written: part of what its calls cost, however a build spreads it.
      await side.audit.flush();
      const spent = process.cpuUsage(used);
      // The first two batches warm up.
      if (b >= 2) {
        side.wall.push(((performance.now() - t) / perBatch) * 1000);
        side.cpu.push((spent.user + spent.system) / perBatch);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  run.abort();
  for (const side of sides) await side.audit.close();
  return Object.fromEntries(
    sides.map((side) => [
      side.build.label,
      {
        batches,
        perBatch,
        wallUs: median(side.wall),
        cpuUs: median(side.cpu),
        minCpuUs: Math.min(...side.cpu),
      },
    ]),
  );
}

// Part 3: memory with 1 and 16 agents sharing one server, against the same fan-out without MCP.
const server = await startFakeAnthropic({
  responder: (req) => {
    const system = systemText(req.body);
    const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
    const asks = typeof req.body.messages[0]?.content === 'string' ? req.body.messages[0].content : '';
    if (system.startsWith('[lead]')) {
      const n = Number(/go (\d+)/.exec(asks)?.[1] ?? 1);
      return turn === 0
        ? toolUseReply(
            Array.from({ length: n }, (_, i) => ({
              name: 'Task',
              input: {
                description: `p${i}`,
                prompt: `p${i}`,
                subagent_type: system.includes('mcp') ? 'mcpsub' : 'plainsub',
              },
            })),
          )
        : textReply('done');
    }
    if (turn > 0) return textReply('sub done');
    return system.startsWith('[mcpsub]')
      ? toolUseReply([{ name: 'mcp__fixture__echo', input: { text: 'hi' } }], { latencyMs: 200 })
      : toolUseReply([{ name: 'Read', input: { file_path: 'README.md' } }], { latencyMs: 200 });
  },
});
const agents = JSON.stringify({
  lead: { description: 'fans out', prompt: '[lead] uses mcp subagents', tools: ['Task'] },
  plainlead: { description: 'fans out', prompt: '[lead] uses plain subagents', tools: ['Task'] },
  mcpsub: { description: 'calls echo', prompt: '[mcpsub] agent', tools: ['mcp__fixture__echo'] },
  plainsub: { description: 'reads', prompt: '[plainsub] agent', tools: ['Read'] },
});
const project = path.join(root, 'project');
await mkdir(path.join(home, '.cadre'), { recursive: true });
await mkdir(project, { recursive: true });
await writeFile(path.join(project, 'README.md'), '# bench\n');
await writeFile(
  path.join(home, '.cadre', 'config.json'),
  JSON.stringify({
    mcpServers: { fixture: { command: process.execPath, args: [SERVER, 'rss', root] } },
    concurrency: 20,
  }),
);

/** Peak RSS (VmHWM) of the fixture server processes of this benchmark, polled while `work` runs. */
async function serverPeak<T>(work: Promise<T>): Promise<{ result: T; peakMb: number; processes: number }> {
  let peak = 0;
  const seen = new Set<number>();
  let done = false;
  const poll = async () => {
    while (!done) {
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
          if (!cmd.startsWith(`${process.execPath} ${SERVER} rss ${root}`)) continue;
          seen.add(Number(entry));
          const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
          if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
        } catch {
          // The process ended while we looked.
        }
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const polling = poll();
  const result = await work;
  done = true;
  await polling;
  return { result, peakMb: peak, processes: seen.size };
}

async function memory(rounds: number) {
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, HOME: home };
  const rows: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++)
    for (const n of [1, 16])
      for (const withMcp of [true, false]) {
        const { result, peakMb, processes } = await serverPeak(
          runCli(
            [
              'run',
              withMcp ? 'lead' : 'plainlead',
              `go ${n}`,
              '--json',
              '--agents',
              agents,
              '--cwd',
              project,
            ],
            env,
            project,
          ),
        );
        if (result.code !== 0) throw new Error(`cadre run failed: ${result.stderr.slice(-500)}`);
        rows.push({
          n,
          mcp: withMcp ? 1 : 0,
          hostRssMb: result.maxRssMb,
          serverRssMb: peakMb,
          serverProcesses: processes,
        });
      }
  const pick = (n: number, mcp: number, key: string) =>
    median(rows.filter((row) => row.n === n && row.mcp === mcp).map((row) => row[key]!));
  // MCP's share of memory: the host's extra RSS against the same run without MCP, plus the server's own.
  const share = (n: number) => pick(n, 1, 'hostRssMb') - pick(n, 0, 'hostRssMb') + pick(n, 1, 'serverRssMb');
  return {
    rounds,
    rows,
    hostRssMb: { one: pick(1, 1, 'hostRssMb'), sixteen: pick(16, 1, 'hostRssMb') },
    hostRssWithoutMcpMb: { one: pick(1, 0, 'hostRssMb'), sixteen: pick(16, 0, 'hostRssMb') },
    serverRssMb: { one: pick(1, 1, 'serverRssMb'), sixteen: pick(16, 1, 'serverRssMb') },
    serverProcesses: { one: pick(1, 1, 'serverProcesses'), sixteen: pick(16, 1, 'serverProcesses') },
    mcpShareMb: { one: share(1), sixteen: share(16) },
    growthMb: share(16) - share(1),
  };
}

const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set((process.argv[onlyAt + 1] ?? '').split(',')) : undefined;
const want = (part: string) => !only || only.has(part);
const echo = want('roundTrip') ? await roundTrip('echo', { text: 'x'.repeat(64) }, 200, 10) : undefined;
const work = want('roundTrip') ? await roundTrip('slow', { ms: 5 }, 50, 10) : undefined;
const cpu = want('cpu') ? await hostCpu(15, 5000) : undefined;
const mem = want('memory') ? await memory(3) : undefined;
await server.close();
await rm(root, { recursive: true, force: true });
type RoundTrip = Awaited<ReturnType<typeof roundTrip>>;
const ways = (r: RoundTrip) =>
  Object.entries(r.medianUs)
    .map(([way, us]) => `${way} ${us.toFixed(0)}`)
    .join(', ');
const lines: string[] = [];
if (echo && work) {
  console.table([echo, work].map((r) => ({ tool: r.tool, ...r.medianUs })));
  lines.push(
    `mcp.call round trip, median µs (sdk: the SDK client directly; floor: an agent thread to the hub over its port with no checks; hub: the hub's connection; handler: the host's handler with policy and audit, in the host's thread; capability: an agent thread through its capability port):`,
  );
  for (const r of [echo, work]) {
    lines.push(`  ${r.tool === 'echo' ? 'echo (no work)' : 'a tool doing 5 ms of work'}: ${ways(r)}`);
    for (const build of builds) {
      const b = r.builds[build.label]!;
      lines.push(
        `    ${build.label}: ${b.ratio.toFixed(r.tool === 'echo' ? 2 : 3)}× the SDK, +${b.overheadUs.toFixed(0)} µs${r.tool === 'echo' ? ' (goal ≤ 1.2×)' : ''}; +${b.overFloorUs.toFixed(0)} µs over the floor (the thread hop alone: ${r.floorRatio.toFixed(2)}× the SDK)`,
      );
    }
  }
}
if (cpu)
  for (const build of builds) {
    const c = cpu[build.label]!;
    lines.push(
      `host CPU per mcp.call, ${build.label} (handler over a connection that answers at once, its audit lines written): ${c.cpuUs.toFixed(1)} µs of CPU (best batch ${c.minCpuUs.toFixed(1)}), ${c.wallUs.toFixed(1)} µs of wall time; medians of ${c.batches} batches of ${c.perBatch}`,
    );
  }
if (mem) {
  console.table(mem.rows);
  lines.push(
    `server processes: ${mem.serverProcesses.one} with 1 agent, ${mem.serverProcesses.sixteen} with 16`,
    `MCP's memory (host RSS over the same run without MCP + the server's peak RSS): ${mem.mcpShareMb.one.toFixed(1)} MB with 1 agent, ${mem.mcpShareMb.sixteen.toFixed(1)} MB with 16: +${mem.growthMb.toFixed(1)} MB (goal ≤ 10; median of ${mem.rounds} fresh CLI processes each)`,
  );
}
console.log(lines.join('\n'));
const name = only ? `mcp-${[...only].join('-')}` : 'mcp';
const result = {
  builds: builds.map((b) => b.label),
  roundTrip: echo && work ? { echo, work } : undefined,
  hostCpu: cpu,
  memory: mem,
};
console.log(`written to ${await writeResult(name, result)}`);
