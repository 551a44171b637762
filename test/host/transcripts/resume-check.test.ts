// Resume checks what it reads: a transcript that does not replay into a conversation the
// Messages API accepts is refused with its line number, a safe repair is made with a warning, and
// a huge torn line is skipped quickly without being held. Then the same through the real CLI: a
// lead agent resuming a damaged run of its own tree gets the refusal, with the line, as its Task
// result, and a person resuming it gets it on stderr.
import { createWriteStream } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTranscript } from '../../../src/host/transcripts/reader.js';
import { checkReplay } from '../../../src/host/transcripts/resume.js';
import type { ConversationMessage } from '../../../src/shared/events.js';
import { runCli } from '../../support/cli.js';
import {
  lastText,
  startFakeAnthropic,
  systemText,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { tempProject } from '../../support/project.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-resume-check-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const header = (segment = 0) =>
  JSON.stringify({ type: 'header', version: 1, agentId: 'r', at: 1, resumed: segment > 0 });
const msg = (message: ConversationMessage) =>
  JSON.stringify({ agentId: 'r', depth: 0, at: 1, type: 'message-append', message });
const use = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'a' });
const status = JSON.stringify({ type: 'status', at: 2, status: 'completed', output: null });

/** A complete, valid transcript: prompt, a tool call and its result, the answer. */
const good = () => [
  header(),
  msg({ role: 'user', content: 'find it' }),
  JSON.stringify({ agentId: 'r', depth: 0, at: 1, type: 'text-delta', text: 'looking' }),
  msg({ role: 'assistant', content: [use('t1')] }),
  msg({ role: 'user', content: [result('t1')] }),
  msg({ role: 'assistant', content: [{ type: 'text', text: 'found' }] }),
  status,
];

async function replayOf(name: string, lines: string[] | Buffer) {
  const file = path.join(dir, `${name}.jsonl`);
  await writeFile(file, Array.isArray(lines) ? `${lines.join('\n')}\n` : lines);
  return checkReplay(await readTranscript(file, { events: false }));
}

describe('checkReplay', () => {
  it('replays a valid transcript unchanged, with no warning', async () => {
    const replay = await replayOf('good', good());
    expect(replay.warnings).toEqual([]);
    expect(replay.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('refuses a message line replaced by garbage, naming the line', async () => {
    const lines = good();
    lines[4] = '\u0000\u0007garbage{{{';
    await expect(replayOf('garbage', lines)).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(
        /garbage\.jsonl: line 5: the line is not JSON; a message may be missing/,
      ),
    });
  });

  it('refuses a binary file: it is not a transcript', async () => {
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
    await expect(replayOf('binary', binary)).rejects.toMatchObject({
      message: expect.stringMatching(/line 1: this is not a cadre transcript/),
    });
  });

  it('refuses a conversation with a message missing (two assistant turns in a row)', async () => {
    const lines = good();
    lines.splice(4, 1); // the user message with the tool result
    await expect(replayOf('missing', lines)).rejects.toMatchObject({
      message: expect.stringMatching(
        /line 5: two assistant messages in a row; the user message between them is missing/,
      ),
    });
  });

  it('refuses a tool result for a call the model never made, and a call left unanswered mid-conversation', async () => {
    const stray = good();
    stray[4] = msg({ role: 'user', content: [result('t9')] });
    await expect(replayOf('stray', stray)).rejects.toMatchObject({
      message: expect.stringMatching(
        /line 5: a tool result for t9, which the message before it did not call/,
      ),
    });
    const unanswered = good();
    unanswered[4] = msg({ role: 'user', content: 'no results here' });
    await expect(replayOf('unanswered', unanswered)).rejects.toMatchObject({
      message: expect.stringMatching(/line 5: the tool call\(s\) t1 of line 4 have no result/),
    });
  });

  it('repairs what is safe, with a warning: a torn last line, tool calls cut off by the end of the run', async () => {
    const lines = good().slice(0, 4); // ends on the tool call
    lines.push('{"agentId":"r","type":"message-app');
    const file = path.join(dir, 'torn.jsonl');
    await writeFile(file, lines.join('\n'));
    const replay = checkReplay(await readTranscript(file));
    expect(replay.warnings).toEqual([
      'line 5 of the transcript was cut short and is left out',
      '1 tool call(s) of the last turn had no result (the run ended first); they are closed as interrupted',
    ]);
    expect(replay.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ tool_use_id: 't1', is_error: true }],
    });
  });

  it('replays a transcript that was resumed before, as that resume repaired it', async () => {
    const lines = [
      ...good().slice(0, 4), // killed during the tool call
      header(1),
      msg({ role: 'user', content: 'go on' }), // the resume's prompt
      msg({ role: 'assistant', content: [{ type: 'text', text: 'done' }] }),
      status,
    ];
    const replay = await replayOf('resumed', lines);
    expect(replay.warnings).toEqual([]);
    expect(replay.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(replay.messages[2]?.content).toMatchObject([
      { tool_use_id: 't1', is_error: true },
      { text: 'go on' },
    ]);
  });

  it('skips a 600 MB torn last line in seconds, without holding it', async () => {
    const file = path.join(dir, 'huge-torn.jsonl');
    await writeFile(file, `${good().slice(0, -1).join('\n')}\n{"type":"text-delta","text":"`);
    const out = createWriteStream(file, { flags: 'a' });
    const block = Buffer.alloc(8 * 1024 * 1024, 'x');
    for (let i = 0; i < 75; i++)
      if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const replay = checkReplay(await readTranscript(file, { events: false }));
    const seconds = (performance.now() - started) / 1000;
    expect(replay.warnings[0]).toMatch(/^line 7 of the transcript was cut short/);
    expect(replay.messages).toHaveLength(4);
    expect(seconds).toBeLessThan(15);
    expect((process.memoryUsage().rss - before) / 1048576).toBeLessThan(400);
  }, 60_000);
});

describe('resume through the CLI', () => {
  let server: FakeAnthropic;
  let project: Awaited<ReturnType<typeof tempProject>>;
  let env: Record<string, string>;
  const agents = JSON.stringify({
    lead: { description: 'lead', prompt: '[lead] resumes runs', tools: ['Task'], maxDepth: 1 },
    worker: { description: 'worker', prompt: '[worker] answers', tools: ['Read'] },
  });

  beforeAll(async () => {
    project = await tempProject({ 'a.txt': 'a\n' });
    server = await startFakeAnthropic({
      responder: (req) => {
        const system = systemText(req.body);
        if (system.startsWith('[worker]')) return textReply('worker answer');
        const results = toolResults(req.body);
        if (results.length > 0) return textReply(`lead saw: ${JSON.stringify(results[0]?.content)}`);
        // The latest prompt says what to do: start a worker, or resume one.
        const id = /resume (\S+)/.exec(lastText(req.body))?.[1];
        return toolUseReply([
          {
            name: 'Task',
            input: {
              description: 'again',
              prompt: 'continue',
              subagent_type: 'worker',
              ...(id !== undefined ? { resume: id } : {}),
            },
          },
        ]);
      },
    });
    env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  });
  afterAll(async () => {
    await server.close();
    await project.cleanup();
  });

  const cadre = (...args: string[]) =>
    runCli([...args, '--agents', agents, '--cwd', project.dir], env, project.dir);

  /** A lead that starts a worker and ends: the worker's run belongs to the lead's tree. */
  const leadWithWorker = async () => {
    const r = await cadre('run', 'lead', 'start a worker', '--json');
    const lead = JSON.parse(r.stdout) as { agentId: string; transcriptPath: string; result: string };
    const workerId = /worker-[0-9a-f]{8}/.exec(lead.result)?.[0] ?? '';
    expect(workerId, lead.result).not.toBe('');
    const transcript = path.join(path.dirname(lead.transcriptPath), `${workerId}.jsonl`);
    return { leadId: lead.agentId, workerId, transcript };
  };

  /** Damages the first message line of a transcript; returns its 1-based line number. */
  const damage = async (file: string) => {
    const lines = (await readFile(file, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.includes('"message-append"'));
    lines[at] = 'garbage where a message was';
    await writeFile(file, lines.join('\n'));
    return at + 1;
  };

  it('a damaged transcript is refused with its line number, as the Task result the lead sees', async () => {
    const { leadId, workerId, transcript } = await leadWithWorker();
    const line = await damage(transcript);
    // The person resumes the lead; its tree is the worker's, so the lead may resume the worker.
    const r = await cadre('run', 'lead', `resume ${workerId}`, '--resume', leadId);
    expect(r.stdout).toMatch(
      new RegExp(`cannot resume from .*${workerId}\\.jsonl: line ${line}: the line is not JSON`),
    );
  });

  it('a damaged transcript is refused with its line number when a person resumes it', async () => {
    const { workerId, transcript } = await leadWithWorker();
    const line = await damage(transcript);
    const r = await cadre('run', 'worker', 'continue', '--resume', workerId);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`cannot resume from .*${workerId}\\.jsonl: line ${line}: the line is not JSON`),
    );
  });

  it('a transcript torn by a kill is repaired, and the resumed run says so', async () => {
    const { leadId, workerId, transcript } = await leadWithWorker();
    await appendFile(transcript, '{"type":"text-delta","te');
    const r = await cadre('run', 'lead', `resume ${workerId}`, '--resume', leadId);
    expect(r.stderr).toMatch(
      /! resumed with a repair: line \d+ of the transcript was cut short and is left out/,
    );
    expect(r.stdout).toMatch(/lead saw: .*worker answer/);
  });
});
