// Test harness for end-to-end agent runs: a temp project, the fake Messages API server scripted per
// agent (by system prompt), and a runtime pointed at it through the real SDK.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../../src/host/runtime.js';
import {
  startFakeAnthropic,
  systemText,
  toolResults,
  type FakeAnthropic,
  type RecordedRequest,
  type Step,
} from '../../support/fake-anthropic.js';
import { tempProject } from '../../support/project.js';

/** Scripts one agent: `turn` is 0 for its first request, then counts tool_result rounds. */
export type AgentScript = (ctx: {
  req: RecordedRequest;
  turn: number;
  results: ReturnType<typeof toolResults>;
}) => Step | Promise<Step>;

/** A running harness. */
export interface Harness {
  server: FakeAnthropic;
  runtime: Runtime;
  dir: string;
  home: string;
  close(): Promise<void>;
}

/** Agents defined for tests through the --agents JSON. Each prompt starts with a marker the script keys on. */
export function agentsJson(defs: Record<string, Record<string, unknown>>): string {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, def] of Object.entries(defs))
    out[name] = { description: `test agent ${name}`, prompt: `[${name}] test agent.`, ...def };
  return JSON.stringify(out);
}

/** Counts assistant turns already in the conversation. */
function turnOf(req: RecordedRequest): number {
  return req.body.messages.filter((m) => m.role === 'assistant').length;
}

/** Starts a server whose replies come from `scripts[agentName]` (matched by the `[name]` marker). */
export async function startHarness(
  scripts: Record<string, AgentScript>,
  defs: Record<string, Record<string, unknown>>,
  options: Partial<RuntimeOptions> & {
    /** Project files; a function gets the fake server's URL (for config that names it). */
    files?: Record<string, string> | ((serverUrl: string) => Record<string, string>);
    /** Files written under the user's home (for `~/.cadre/config.json`). */
    homeFiles?: Record<string, string>;
  } = {},
): Promise<Harness> {
  const server = await startFakeAnthropic({
    responder: (req) => {
      const system = systemText(req.body);
      const name = /^\[([a-z0-9-]+)\]/.exec(system)?.[1] ?? 'unknown';
      const script = scripts[name];
      if (!script) throw new Error(`no script for agent ${name}`);
      return script({ req, turn: turnOf(req), results: toolResults(req.body) });
    },
  });
  const files = typeof options.files === 'function' ? options.files(server.url) : options.files;
  const project = await tempProject(files ?? { 'README.md': '# test project\n' });
  for (const [rel, content] of Object.entries(options.homeFiles ?? {})) {
    const file = path.join(project.home, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  const { files: _files, homeFiles: _homeFiles, env, ...rest } = options;
  const runtime = await createRuntime({
    cwd: project.dir,
    home: project.home,
    // More variables may be given; the model's key and URL are always the fake server's.
    env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
    agents: agentsJson(defs),
    ...rest,
  });
  return {
    server,
    runtime,
    dir: project.dir,
    home: project.home,
    async close() {
      await runtime.close();
      await server.close();
      await project.cleanup();
    },
  };
}
