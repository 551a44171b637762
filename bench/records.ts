// bench/records: what keeping records, secrets and the terminal safe costs, each measured side by
// side in one run (interleaved rounds, medians), so the ratios hold on a noisy machine.
//   1. the policy on 20,000 paths (decideEach, what Grep's I/O threads run per batch): with the
//      record locations and the protected list in the context, vs without
//   2. what a read adds per file: sniffing its first bytes, vs the binary check every read makes
//   3. the audit log: a chained append under the lock (with its checkpoint), vs a plain append
//   4. the terminal sanitizer on 1 MiB of model text (plain, and full of escape sequences), vs
//      JSON.stringify of the same text (what --json output costs)
// Run: npx tsx bench/records.ts
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decideEach } from '../src/host/capabilities/policy.js';
import { looksBinary } from '../src/host/capabilities/fs/read.js';
import { sniffContent } from '../src/host/capabilities/fs/sniff.js';
import { appendChained } from '../src/host/records/audit-chain.js';
import { terminalText } from '../src/host/terminal-text.js';
import { median, writeResult } from './support/stats.js';

const ROUNDS = 9;
const P = '/work/proj';

/** Times `fn` once, in milliseconds. */
function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** Runs `a` and `b` alternately for ROUNDS rounds; the medians of each and their ratio. */
function sideBySide(a: () => void, b: () => void): { aMs: number; bMs: number; ratio: number } {
  a();
  b(); // warm-up
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    as.push(time(a));
    bs.push(time(b));
  }
  return { aMs: median(as), bMs: median(bs), ratio: median(as) / median(bs) };
}

function policy() {
  const paths = Array.from({ length: 20_000 }, (_, i) => {
    const abs = `${P}/src/module-${i % 200}/file-${i}.ts`;
    return { requested: abs, absolute: abs, real: abs, exists: true };
  });
  const base = {
    capability: 'fs.readMany',
    projectDir: P,
    mode: 'default' as const,
    rules: { deny: ['Read(**/.env)'] },
    paths,
  };
  const records = [
    '/home/u/.cadre/projects',
    `${P}/.cadre/transcripts`,
    `${P}/.cadre/audit.jsonl`,
    '/home/u/.cadre/projects/p/transcripts',
    `${P}/run.cassette.jsonl`,
  ];
  const r = sideBySide(
    () => decideEach({ ...base, records, protect: ['deploy', 'scripts/release.sh'] }),
    () => decideEach(base),
  );
  return {
    paths: paths.length,
    withRecordsMs: r.aMs,
    withoutMs: r.bMs,
    ratio: r.ratio,
    perPathNs: ((r.aMs - r.bMs) / paths.length) * 1e6,
  };
}

function sniff() {
  const heads = Array.from({ length: 20_000 }, (_, i) =>
    new TextEncoder().encode(
      `${i % 3 === 0 ? '{"name": "x"}' : '// file ' + i}\nexport const value${i} = ${i};\n`.repeat(20),
    ),
  );
  const r = sideBySide(
    () => heads.forEach((h) => sniffContent(h)),
    () => heads.forEach((h) => looksBinary(h)),
  );
  return {
    files: heads.length,
    sniffMs: r.aMs,
    binaryCheckMs: r.bMs,
    ratio: r.ratio,
    perFileNs: (r.aMs / heads.length) * 1e6,
  };
}

function audit() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cadre-bench-audit-'));
  const bodies = Array.from({ length: 20 }, (_, i) =>
    JSON.stringify({
      at: Date.now(),
      agentId: 'explore-1a2b3c4d',
      capability: 'fs.read',
      args: { path: `src/f${i}.ts` },
      decision: 'allow',
      reason: 'reads are allowed in default mode',
      durationMs: 0.4,
      ok: true,
    }),
  );
  const text = bodies.map((b) => `${b}\n`).join('');
  const chained = path.join(dir, 'chained.jsonl');
  const plain = path.join(dir, 'plain.jsonl');
  let state: ReturnType<typeof appendChained> | undefined;
  const r = sideBySide(
    () => {
      for (let i = 0; i < 50; i++) state = appendChained(chained, bodies, state);
    },
    () => {
      for (let i = 0; i < 50; i++) appendFileSync(plain, text);
    },
  );
  rmSync(dir, { recursive: true, force: true });
  return {
    linesPerAppend: bodies.length,
    chainedAppendUs: (r.aMs / 50) * 1000,
    plainAppendUs: (r.bMs / 50) * 1000,
    ratio: r.ratio,
  };
}

function sanitizer() {
  const hostile = 'All tests passed.\x1b[2J\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07 résumé 日本 \u202eevil\u200b\n';
  const plain = 'The retry logic lives in src/http/retry.ts:42, with backoff in src/http/backoff.ts. ✓\n';
  const mib = (chunk: string) => chunk.repeat(Math.ceil((1 << 20) / chunk.length));
  let sink = 0;
  const run = (text: string) => {
    const r = sideBySide(
      () => (sink += terminalText(text).length),
      () => (sink += JSON.stringify(text).length),
    );
    return {
      chars: text.length,
      sanitizeMs: r.aMs,
      jsonStringifyMs: r.bMs,
      ratio: r.ratio,
      mbPerS: text.length / 1e6 / (r.aMs / 1000),
    };
  };
  return { hostile: run(mib(hostile)), plain: run(mib(plain)), sink };
}

const result = { rounds: ROUNDS, policy: policy(), sniff: sniff(), audit: audit(), sanitizer: sanitizer() };
console.log(JSON.stringify(result, null, 2));
console.log(`results: ${await writeResult('records', result)}`);
