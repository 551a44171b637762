// The remembered fan-out, through real runtimes (one after another on one project, as people run a
// lead again and again), real threads and the real SDK against the fake Messages API: a lead that
// fanned out 8 has 8 threads parked during its next run's first request; `prestartLearn: false`
// brings back the threads of `prestartThreads` alone; a corrupt or hostile memory file is ignored,
// a huge claimed width starts no more than the caps allow; no agent reads or writes the file.
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../../src/host/runtime.js';
import {
  startFakeAnthropic,
  systemText,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { projectRecords, tempProject } from '../../support/project.js';
import { until } from '../../support/until.js';
import { agentsJson } from './harness.js';

type Stats = ReturnType<Runtime['stats']>;

/** What the lead's first reply does in the current phase. */
interface Phase {
  tasks: number;
  /** Parked threads the lead's model waits for before it replies (then 300 ms more). */
  parked: number;
  atReply?: Stats | undefined;
}

let server: FakeAnthropic;
let runtime: Runtime | undefined;
let phase: Phase = { tasks: 0, parked: 0 };
/** The lead's first request instead of the Task fan-out (the records test). */
let firstReply: (() => ReturnType<typeof toolUseReply>) | undefined;
let lastResults: ReturnType<typeof toolResults> = [];

beforeAll(async () => {
  server = await startFakeAnthropic({
    responder: async (req) => {
      const system = systemText(req.body);
      if (system.startsWith('[sub]')) return textReply('sub done');
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      if (turn > 0) {
        lastResults = toolResults(req.body);
        return textReply('lead done');
      }
      if (firstReply) return firstReply();
      const current = phase;
      if (current.parked > 0) await until(() => runtime?.stats().parked === current.parked, 'parked threads');
      // A while longer: nothing more is started.
      await new Promise((resolve) => setTimeout(resolve, 300));
      current.atReply = runtime?.stats();
      return toolUseReply(
        Array.from({ length: current.tasks }, (_, i) => ({
          name: 'Task',
          input: { description: `part ${i}`, prompt: `part ${i}`, subagent_type: 'sub' },
        })),
      );
    },
  });
});
afterAll(async () => {
  await server.close();
});

const AGENTS = { lead: { tools: ['Task'] }, sub: { tools: ['Read'] } };

/** One `lead` run in a runtime of its own on `project`, the model replying as `next` says. */
async function leadRun(
  project: { dir: string; home: string },
  next: Phase,
  config: Record<string, unknown> = {},
  defs: Record<string, Record<string, unknown>> = AGENTS,
) {
  await writeFile(path.join(project.dir, '.cadre', 'config.json'), JSON.stringify(config));
  phase = next;
  runtime = await createRuntime({
    cwd: project.dir,
    home: project.home,
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url },
    agents: agentsJson(defs),
    permissionMode: 'bypassPermissions',
  });
  try {
    const out = await runtime.run({ subagent_type: 'lead', prompt: 'go' });
    return { out, atReply: next.atReply, after: runtime.stats() };
  } finally {
    await runtime.close();
    runtime = undefined;
  }
}

async function newProject() {
  const project = await tempProject({ '.cadre/config.json': '{}' });
  const file = (await projectRecords(project)).fanoutFile;
  await mkdir(path.dirname(file), { recursive: true });
  return { ...project, file };
}

const memoryOf = async (file: string) =>
  JSON.parse(await readFile(file, 'utf8')) as {
    version: number;
    agents: { name: string; runs: number[][] }[];
  };
const remembered = (width: number) =>
  JSON.stringify({ version: 1, agents: [{ name: 'lead', at: 1, runs: [[width, 0]] }] });

describe('the remembered fan-out', () => {
  it('has as many threads parked during the next run as the last run fanned out', async () => {
    const project = await newProject();
    try {
      const first = await leadRun(project, { tasks: 8, parked: 2 });
      expect(first.out.status).toBe('completed');
      // A first run knows nothing: prestartThreads (2) threads, the other 6 start after the reply.
      expect(first.atReply).toMatchObject({ threads: 3, parked: 2 });
      const memory = await memoryOf(project.file);
      // The lead's replies: 8 Task blocks, then none. The subagents hold no Task: nothing of theirs.
      expect(memory.agents).toEqual([expect.objectContaining({ name: 'lead', runs: [[8, 0]] })]);

      const second = await leadRun(project, { tasks: 8, parked: 8 });
      expect(second.out.status).toBe('completed');
      expect(second.atReply).toMatchObject({ threads: 9, parked: 8 });
      // Every subagent took a parked thread: none was started after the reply.
      expect(second.after).toMatchObject({ threads: 9, parked: 0 });
      expect((await memoryOf(project.file)).agents[0]?.runs).toEqual([
        [8, 0],
        [8, 0],
      ]);
    } finally {
      await project.cleanup();
    }
  });

  it('is neither used nor written with prestartLearn: false, nor with prestartThreads: 0', async () => {
    const project = await newProject();
    try {
      await writeFile(project.file, remembered(8), { mode: 0o600 });
      const run = await leadRun(project, { tasks: 3, parked: 2 }, { prestartLearn: false });
      expect(run.out.status).toBe('completed');
      expect(run.atReply).toMatchObject({ threads: 3, parked: 2 });
      expect(await readFile(project.file, 'utf8')).toBe(remembered(8));
      // prestartThreads: 0 starts nothing ahead, remembered or not, and so learns nothing.
      const none = await leadRun(project, { tasks: 3, parked: 0 }, { prestartThreads: 0 });
      expect(none.out.status).toBe('completed');
      expect(none.atReply).toMatchObject({ threads: 1, parked: 0 });
      expect(await readFile(project.file, 'utf8')).toBe(remembered(8));
    } finally {
      await project.cleanup();
    }
  });

  it('never starts more than the caps allow, whatever width the file claims', async () => {
    const project = await newProject();
    try {
      await writeFile(project.file, remembered(1000), { mode: 0o600 });
      const run = await leadRun(project, { tasks: 2, parked: 4 }, { maxTasksPerMessage: 4 });
      expect(run.out.status).toBe('completed');
      expect(run.atReply).toMatchObject({ threads: 5, parked: 4 });
    } finally {
      await project.cleanup();
    }
  });

  it('ignores a corrupt, oversized, linked or hostile file, and replaces it with a good one', async () => {
    const project = await newProject();
    const elsewhere = path.join(project.home, 'elsewhere.json');
    await writeFile(elsewhere, remembered(8), { mode: 0o600 });
    const plant: Record<string, () => Promise<void>> = {
      'not JSON': () => writeFile(project.file, '{"version":1,"agents":[{', { mode: 0o600 }),
      'keyed by name': () =>
        writeFile(project.file, '{"version":1,"agents":{"__proto__":{"runs":[[8]]},"lead":{"runs":[[8]]}}}', {
          mode: 0o600,
        }),
      'bad widths': () =>
        writeFile(
          project.file,
          JSON.stringify({ version: 1, agents: [{ name: 'lead', at: 1, runs: [[-8, 8.5]] }] }),
          {
            mode: 0o600,
          },
        ),
      oversized: () => writeFile(project.file, remembered(8) + ' '.repeat(300 * 1024), { mode: 0o600 }),
      'writable by others': async () => {
        await writeFile(project.file, remembered(8));
        await chmod(project.file, 0o666);
      },
      'a link': () => symlink(elsewhere, project.file),
      'a FIFO': async () => void execFileSync('mkfifo', [project.file]),
    };
    try {
      for (const [what, write] of Object.entries(plant)) {
        await write();
        const run = await leadRun(project, { tasks: 3, parked: 2 });
        expect(run.out.status, what).toBe('completed');
        expect(run.atReply, what).toMatchObject({ threads: 3, parked: 2 });
        // The run's own memory replaced the bad file (a link itself, not what it leads to).
        expect((await memoryOf(project.file)).agents[0]?.runs, what).toEqual([[3, 0]]);
        await rm(project.file, { force: true });
      }
      expect(await readFile(elsewhere, 'utf8')).toBe(remembered(8));
    } finally {
      await project.cleanup();
    }
  });

  it('is out of every agent’s reach: Read, Write and a command neither read nor change it', async () => {
    const project = await newProject();
    const file = await realpath(path.dirname(project.file)).then((dir) => path.join(dir, 'fanout.json'));
    const forged = JSON.stringify({ version: 1, agents: [{ name: 'lead', at: 9, runs: [[777]] }] });
    const command = `cat ${file}; echo '${forged}' > ${file}; echo tried`;
    firstReply = () =>
      toolUseReply([
        { name: 'Read', input: { file_path: file } },
        { name: 'Write', input: { file_path: file, content: forged } },
        {
          name: 'Bash',
          input: { command: `echo ${Buffer.from(command).toString('base64')} | base64 -d | bash` },
        },
      ]);
    try {
      await writeFile(project.file, remembered(5), { mode: 0o600 });
      const run = await leadRun(
        project,
        { tasks: 0, parked: 0 },
        {},
        {
          ...AGENTS,
          lead: { tools: ['Task', 'Read', 'Write', 'Bash'] },
        },
      );
      expect(run.out.status).toBe('completed');
      const texts = lastResults.map((r) => JSON.stringify(r.content));
      expect(texts).toHaveLength(3);
      expect(lastResults[0]?.is_error).toBe(true);
      expect(lastResults[1]?.is_error).toBe(true);
      expect(texts[0]).toMatch(/cadre's own records/);
      expect(texts[1]).toMatch(/cadre's own records/);
      // The command ran (in the sandbox, which hides cadre's records) and saw nothing of the file.
      expect(texts[2]).toContain('tried');
      expect(texts[2]).not.toContain('"version"');
      const memory = await memoryOf(project.file);
      expect(JSON.stringify(memory)).not.toContain('777');
      // This run's own replies (three tool calls, no Task; then its answer) joined the history.
      expect(memory.agents[0]?.runs).toEqual([
        [5, 0],
        [0, 0],
      ]);
    } finally {
      firstReply = undefined;
      await project.cleanup();
    }
  });
});
