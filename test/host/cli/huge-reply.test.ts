// Model replies of hundreds of MB, streamed by the fake server as it generates them, through the
// compiled CLI in both isolation modes: each run ends with one status (`failed`, reason
// `reply_too_large`, the text so far as its result), the host stays alive, its transcript is
// closed, and the CLI process's peak RSS stays bounded by what it keeps, not by what streamed.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedReply, startFakeAnthropic, type FakeAnthropic } from '../../support/fake-anthropic.js';
import { runCliReporting } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';

let server: FakeAnthropic;
let project: Awaited<ReturnType<typeof tempProject>>;
let env: Record<string, string>;

beforeAll(async () => {
  project = await tempProject({ 'a.txt': 'a\n' });
  server = await startFakeAnthropic({
    responder: (req) => {
      const first = req.body.messages[0]?.content;
      const prompt = typeof first === 'string' ? first : JSON.stringify(first);
      const [, mb, shape] = /reply (\d+) MB (text|tool_input|one_line)/.exec(prompt) ?? [];
      return generatedReply(Number(mb) * 1_000_000, { shape: shape as 'text' });
    },
  });
  env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
});
afterAll(async () => {
  await server.close();
  await project.cleanup();
});

interface Output {
  status: string;
  result: string;
  error?: { code: string; reason?: string; message: string };
  transcriptPath: string;
}

/** Runs one reply through `cadre run --json`; returns its output and the CLI's peak RSS in MB. */
async function hugeRun(mb: number, shape: string, isolation: string, cwd = project.dir) {
  const r = await runCliReporting(
    ['run', 'general-purpose', `reply ${mb} MB ${shape}`, '--json', '--isolation', isolation, '--cwd', cwd],
    env,
    cwd,
  );
  const line = r.stderr.split('\n').find((l) => l.startsWith('{"cadreResources"'));
  const rssMb = line
    ? (JSON.parse(line) as { cadreResources: { maxRSSKb: number } }).cadreResources.maxRSSKb / 1024
    : NaN;
  expect(r.signal, r.stderr.slice(-2000)).toBeNull();
  expect(r.code, r.stderr.slice(-2000)).toBe(1);
  return { output: JSON.parse(r.stdout) as Output, rssMb, stderr: r.stderr };
}

describe('huge model replies', () => {
  for (const isolation of ['thread', 'process']) {
    for (const mb of [150, 300, 600]) {
      it(`${mb} MB of text in ${isolation} mode: failed, reply_too_large, the text so far, bounded memory`, async () => {
        const { output, rssMb } = await hugeRun(mb, 'text', isolation);
        expect(output.status).toBe('failed');
        expect(output.error).toMatchObject({ code: 'too_large', reason: 'reply_too_large' });
        expect(output.error?.message).toMatch(/passed 2000000 characters of text \(maxReplyChars\)/);
        // The text that streamed before the cap is the result, held to the cap.
        expect(output.result.length).toBeGreaterThan(1_900_000);
        expect(output.result.length).toBeLessThanOrEqual(2_000_000);
        expect(output.result.startsWith('All work and no play')).toBe(true);
        // A trivial run takes 60-80 MB; the whole reply would be hundreds.
        expect(rssMb).toBeLessThan(200);
        const transcript = (await readFile(output.transcriptPath, 'utf8')).trimEnd().split('\n');
        expect(JSON.parse(transcript.at(-1) ?? '')).toMatchObject({ type: 'status', status: 'failed' });
      });
    }
  }

  it('a tool call whose input streams past its cap ends the same way', async () => {
    const { output, rssMb } = await hugeRun(300, 'tool_input', 'thread');
    expect(output.status).toBe('failed');
    expect(output.error).toMatchObject({ reason: 'reply_too_large' });
    expect(output.error?.message).toMatch(/characters of tool input \(maxToolInputChars\)/);
    expect(rssMb).toBeLessThan(200);
  });

  it('one endless SSE line is cut off by the host before the worker joins it', async () => {
    const { output, rssMb } = await hugeRun(600, 'one_line', 'thread');
    expect(output.status).toBe('failed');
    expect(output.error).toMatchObject({ code: 'too_large', reason: 'reply_too_large' });
    expect(output.error?.message).toMatch(/a line longer than \d+ bytes/);
    expect(rssMb).toBeLessThan(200);
  });

  it('with the cap raised in config, the kept text grows and memory follows what is kept', async () => {
    const dir = path.join(project.dir, 'raised');
    await mkdir(path.join(dir, '.cadre'), { recursive: true });
    await writeFile(path.join(dir, '.cadre', 'config.json'), JSON.stringify({ maxReplyChars: 20_000_000 }));
    const { output, rssMb } = await hugeRun(300, 'text', 'thread', dir);
    expect(output.error).toMatchObject({ reason: 'reply_too_large' });
    expect(output.error?.message).toMatch(/passed 20000000 characters/);
    expect(output.result.length).toBeGreaterThan(19_900_000);
    // Kept: 20 MB. Before the caps, a 150 MB reply took 2.7 GB.
    expect(rssMb).toBeLessThan(500);
  });
});
