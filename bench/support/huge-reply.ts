// The memory of one `cadre run` whose model streams a 100 MB reply, in both isolation modes: the
// CLI's peak RSS against the text the run keeps (its result), next to a one-word reply's. The goal
// is peak RSS ≤ 3 × the kept text + 100 MB. Measured with the default caps (the reply is cut at
// maxReplyChars) and with the caps raised to their maximum (50 M characters kept). Repetitions are
// interleaved and medians reported: the machine is shared.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generatedReply, startFakeAnthropic } from '../../test/support/fake-anthropic.js';
import { runCli } from './cli.js';
import { median } from './stats.js';

const REPLY_CHARS = 100_000_000;
const REPEATS = 3;

interface Case {
  name: string;
  isolation: 'thread' | 'process';
  /** The reply the fake model streams, in characters. */
  replyChars: number;
  /** maxReplyChars in config; undefined = the default. */
  cap?: number;
}

const CASES: Case[] = [
  { name: 'one-word reply (thread)', isolation: 'thread', replyChars: 2 },
  { name: '100 MB reply, default cap (thread)', isolation: 'thread', replyChars: REPLY_CHARS },
  { name: '100 MB reply, 50 M cap (thread)', isolation: 'thread', replyChars: REPLY_CHARS, cap: 50_000_000 },
  { name: 'one-word reply (process)', isolation: 'process', replyChars: 2 },
  { name: '100 MB reply, default cap (process)', isolation: 'process', replyChars: REPLY_CHARS },
  {
    name: '100 MB reply, 50 M cap (process)',
    isolation: 'process',
    replyChars: REPLY_CHARS,
    cap: 50_000_000,
  },
];

/** Runs every case REPEATS times, interleaved; prints and returns the medians. */
export async function hugeReplyMemory(): Promise<Record<string, unknown>[]> {
  const server = await startFakeAnthropic({
    responder: (req) => {
      const first = req.body.messages[0]?.content;
      const chars = Number(/reply of (\d+)/.exec(typeof first === 'string' ? first : '')?.[1] ?? 2);
      return generatedReply(chars);
    },
  });
  const env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const samples = new Map<string, { rss: number[]; kept: number[]; wall: number[] }>();
  for (let rep = 0; rep < REPEATS; rep++) {
    for (const c of CASES) {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-huge-'));
      if (c.cap !== undefined) {
        await mkdir(path.join(dir, '.cadre'));
        await writeFile(path.join(dir, '.cadre', 'config.json'), JSON.stringify({ maxReplyChars: c.cap }));
      }
      const run = await runCli(
        [
          'run',
          'general-purpose',
          `reply of ${c.replyChars}`,
          '--json',
          '--isolation',
          c.isolation,
          '--cwd',
          dir,
        ],
        env,
        dir,
      );
      const out = JSON.parse(run.stdout) as { result: string; status: string };
      const s = samples.get(c.name) ?? { rss: [], kept: [], wall: [] };
      s.rss.push(run.maxRssMb);
      s.kept.push(Buffer.byteLength(out.result) / 1_048_576);
      s.wall.push(run.wallMs);
      samples.set(c.name, s);
      await rm(dir, { recursive: true, force: true });
    }
  }
  await server.close();
  const rows = CASES.map((c) => {
    const s = samples.get(c.name) ?? { rss: [], kept: [], wall: [] };
    const keptMb = median(s.kept);
    const peakRssMb = median(s.rss);
    const goalMb = 3 * keptMb + 100;
    return {
      case: c.name,
      keptMb: Number(keptMb.toFixed(1)),
      peakRssMb: Math.round(peakRssMb),
      rssRangeMb: `${Math.round(Math.min(...s.rss))}-${Math.round(Math.max(...s.rss))}`,
      goalMb: Math.round(goalMb),
      met: c.replyChars > 2 ? peakRssMb <= goalMb : undefined,
      wallMs: Math.round(median(s.wall)),
    };
  });
  console.table(rows);
  return rows;
}
