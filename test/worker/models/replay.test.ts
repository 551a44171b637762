// Recording and replay: a run recorded from the real SDK against the fake server plays back
// through the loop with the same events and result, and a committed cassette replays offline.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeAnthropic,
  textReply,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import type { AgentEvent } from '../../../src/shared/events.js';
import {
  formatCassetteLine,
  parseCassette,
  type CassetteExchange,
} from '../../../src/worker/models/cassette.js';
import { createModelClient } from '../../../src/worker/models/model-client.js';
import { drive, fakeModelConfig, fakeTools, makeSpec, hostedModelClient } from './loop-support.js';

const FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/cassettes/tool-round-trip.jsonl',
);

let server: FakeAnthropic;
let dir: string;
beforeAll(async () => {
  server = await startFakeAnthropic();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cadre-cassette-'));
});
afterAll(async () => {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const tools = () =>
  fakeTools({
    Read: () => ({
      content: '     1\texport const config = {\n     2\t  timeout: 300,\n     3\t};',
      isError: false,
    }),
    Grep: () => ({ content: 'src/config.ts:2:  timeout: 300,', isError: false }),
  });
const replayConfig = (cassette: string) => ({
  ...fakeModelConfig('http://127.0.0.1:9'),
  provider: 'replay' as const,
  cassette,
});
/** Events without their clock readings (timestamps and tool durations differ between runs). */
const withoutTime = (events: AgentEvent[]) =>
  events.map(({ at: _at, ...rest }) => (rest.type === 'tool-result' ? { ...rest, durationMs: 0 } : rest));
const spec = (over: Parameters<typeof makeSpec>[0] = {}) =>
  makeSpec({ prompt: 'What is the default timeout?', ...over });

describe('cassettes', () => {
  it('replays a recorded run with the same events and result', async () => {
    server.enqueue(
      toolUseReply([{ id: 'toolu_a', name: 'Read', input: { file_path: 'src/config.ts' } }], {
        text: 'Checking.',
      }),
      textReply('It is 300 seconds.'),
    );
    const exchanges: CassetteExchange[] = [];
    const live = await drive({
      spec: spec({ model: fakeModelConfig(server.url, { record: true }) }),
      client: hostedModelClient(fakeModelConfig(server.url, { record: true }), {
        onExchange: (e) => exchanges.push(e),
      }),
      tools: tools(),
    });
    const file = path.join(dir, 'run.jsonl');
    await fs.writeFile(file, exchanges.map(formatCassetteLine).join(''));
    const before = server.requestCount;

    const cassette = await fs.readFile(file, 'utf8');
    const replayed = await drive({
      spec: spec(),
      client: createModelClient(replayConfig(cassette)),
      tools: tools(),
    });
    expect(server.requestCount).toBe(before); // no network
    expect(replayed.result).toEqual(live.result);
    expect(withoutTime(replayed.events)).toEqual(withoutTime(live.events));
    expect(cassette.trim().split('\n')).toHaveLength(2);
  });

  it('replays the committed fixture without a server', async () => {
    const cassette = await fs.readFile(FIXTURE, 'utf8');
    const t = tools();
    const { result } = await drive({
      spec: spec(),
      client: createModelClient(replayConfig(cassette)),
      tools: t,
    });
    expect(result).toMatchObject({
      status: 'completed',
      result: 'The default timeout is 300 seconds (src/config.ts:2).',
      turns: 2,
      toolCalls: 2,
    });
    expect(result.usage).toMatchObject({ input_tokens: 612, output_tokens: 67 });
    expect(t.log.map((l) => l.name).sort()).toEqual(['Grep', 'Read']);
  });

  it('fails clearly when the run asks for more than the cassette holds', async () => {
    const [first] = (await fs.readFile(FIXTURE, 'utf8')).split('\n');
    const { result } = await drive({
      spec: spec(),
      client: createModelClient(replayConfig(`${first}\n`)),
      tools: tools(),
    });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_error');
    expect(result.error?.message).toBe(
      'the cassette has 1 recorded exchange(s) for this conversation and this run asked for a reply to request 2: the run went further than the recording',
    );
  });

  it('fails clearly when the run diverges from the recording', async () => {
    const cassette = await fs.readFile(FIXTURE, 'utf8');
    // Another task is another conversation: nothing in the cassette answers it.
    const other = await drive({
      spec: spec({ prompt: 'Another question' }),
      client: createModelClient(replayConfig(cassette)),
      tools: tools(),
    });
    expect(other.result.error?.message).toContain('has none for this conversation');
    const [first, second] = cassette.split('\n');
    // A recording whose second request had one message more than this run sends.
    const shifted = JSON.parse(second ?? '') as CassetteExchange;
    shifted.request.messages.push({ role: 'user', content: 'extra' });
    const { result } = await drive({
      spec: spec(),
      client: createModelClient(replayConfig(`${first}\n${JSON.stringify(shifted)}\n`)),
      tools: tools(),
    });
    expect(result.error?.message).toBe(
      'the run diverged from the cassette at request 2: it sent 3 message(s), the recording has 4',
    );
  });

  it('plays interleaved agents from one cassette, each its own conversation', async () => {
    const lines = (await fs.readFile(FIXTURE, 'utf8')).trim().split('\n');
    const other = lines.map((l) => {
      const e = JSON.parse(l) as CassetteExchange;
      e.request.system = 'You are another agent.';
      e.events = e.events.map((ev) =>
        ev.type === 'message-end' && ev.stopReason === 'end_turn'
          ? { ...ev, content: [{ type: 'text', text: 'Other agent answer.' }] }
          : ev,
      );
      return JSON.stringify(e);
    });
    const cassette = [lines[0], other[0], other[1], lines[1]].join('\n');
    const [a, b] = await Promise.all([
      drive({ spec: spec(), client: createModelClient(replayConfig(cassette)), tools: tools() }),
      drive({
        spec: spec({ system: 'You are another agent.' }),
        client: createModelClient(replayConfig(cassette)),
        tools: tools(),
      }),
    ]);
    expect(a.result.result).toBe('The default timeout is 300 seconds (src/config.ts:2).');
    expect(b.result.result).toBe('Other agent answer.');
  });

  it('names the line and field of a bad cassette line and keeps the good ones', async () => {
    const good = (await fs.readFile(FIXTURE, 'utf8')).split('\n')[0] ?? '';
    const parsed = parseCassette(`${good}\nnot json\n{"v":1,"request":{},"events":[]}\n`, 'run.jsonl');
    expect(parsed.exchanges).toHaveLength(1);
    expect(parsed.errors[0]).toMatch(/^run\.jsonl:2: not valid JSON/);
    expect(parsed.errors).toContain(
      'run.jsonl:3: request.model: Invalid input: expected string, received undefined',
    );
    const { result } = await drive({
      spec: spec(),
      client: createModelClient(replayConfig('garbage')),
      tools: tools(),
    });
    expect(result.error?.message).toContain('the cassette is invalid:\ncassette:1: not valid JSON');
  });

  it('replays a recorded failure as the same error', async () => {
    const failed: CassetteExchange = {
      v: 1,
      request: {
        model: 'm',
        system: 'You are a test agent.',
        messages: [{ role: 'user', content: 'What is the default timeout?' }],
        tools: [],
        maxTokens: 10,
      },
      events: [{ type: 'text-delta', text: 'par' }],
      error: { code: 'model_error', message: '529 overloaded_error: Overloaded', details: { status: 529 } },
    };
    const { result } = await drive({
      spec: spec(),
      client: createModelClient(replayConfig(formatCassetteLine(failed))),
    });
    expect(result).toMatchObject({
      status: 'failed',
      result: 'par',
      error: { code: 'model_error', message: '529 overloaded_error: Overloaded' },
    });
  });
});
