// The fan-out memory's file against a real directory: runs kept per agent and their order, what
// another process wrote for other agents kept on a write, concurrent writers leaving one whole
// file, and the widest-still-to-come prediction on multi-turn shapes.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FanoutFile, MAX_FANOUT_BYTES, RUNS_KEPT } from '../../../src/host/agents/fanout-file.js';
import { FanoutMemory, widestStillToCome } from '../../../src/host/agents/fanout-memory.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-fanout-'));
  file = path.join(dir, 'projects', 'p', 'fanout.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const read = async () => FanoutFile.parse(JSON.parse(await readFile(file, 'utf8')));

describe('widestStillToCome', () => {
  it('is the widest reply at the turn or later, across the runs kept', () => {
    const runs = [
      [0, 0, 8, 0],
      [4, 0],
    ];
    expect([0, 1, 2, 3, 4].map((t) => widestStillToCome(runs, t))).toEqual([8, 8, 8, 0, 0]);
    expect(widestStillToCome([], 0)).toBe(0);
  });
});

describe('FanoutMemory', () => {
  it('keeps the latest runs of each agent, written to a private file that parses', async () => {
    const memory = await FanoutMemory.open(file);
    expect(memory.predict('lead', 0)).toBe(0);
    for (let i = 1; i <= RUNS_KEPT + 2; i++) memory.record('lead', [i, 0]);
    memory.record('other', []);
    await memory.flush();
    const written = await read();
    expect(written.agents.map((a) => a.name)).toEqual(['lead']);
    expect(written.agents[0]?.runs.map((r) => r[0])).toEqual([3, 4, 5, 6, 7]);
    expect(memory.predict('lead', 0)).toBe(RUNS_KEPT + 2);
    expect(memory.predict('lead', 1)).toBe(0);
    // Private, and no temporary file left beside it.
    const { mode } = await stat(file);
    expect(mode & 0o077).toBe(0);
    expect(await readdir(path.dirname(file))).toEqual(['fanout.json']);
    // A later process reads it back.
    expect((await FanoutMemory.open(file)).predict('lead', 0)).toBe(RUNS_KEPT + 2);
  });

  it('keeps what another process wrote for other agents; for one agent the last writer wins', async () => {
    const a = await FanoutMemory.open(file);
    const b = await FanoutMemory.open(file);
    a.record('lead', [8]);
    a.record('reviewer', [2]);
    await a.flush();
    b.record('lead', [16]);
    await b.flush();
    const written = await read();
    const byName = Object.fromEntries(written.agents.map((x) => [x.name, x.runs]));
    expect(byName).toEqual({ lead: [[16]], reviewer: [[2]] });
  });

  it('leaves one whole file when several processes write at once', async () => {
    const memories = await Promise.all(Array.from({ length: 8 }, () => FanoutMemory.open(file)));
    for (let round = 0; round < 5; round++) memories.forEach((m, i) => m.record(`agent-${i}`, [round, i]));
    await Promise.all(memories.map((m) => m.flush()));
    const written = await read();
    // Each writer merged what it read; whichever wrote last, the file parses and holds its agent.
    expect(written.agents.length).toBeGreaterThanOrEqual(1);
    expect(await readdir(path.dirname(file))).toEqual(['fanout.json']);
  });

  it('opens a file too large or malformed as an empty memory, and writes over it', async () => {
    const memory = await FanoutMemory.open(file);
    memory.record('seed', [1]);
    await memory.flush();
    await writeFile(file, ' '.repeat(MAX_FANOUT_BYTES + 1));
    expect((await FanoutMemory.open(file)).predict('seed', 0)).toBe(0);
    await writeFile(file, JSON.stringify({ version: 2, agents: [] }));
    const again = await FanoutMemory.open(file);
    expect(again.predict('seed', 0)).toBe(0);
    again.record('lead', [3]);
    await again.flush();
    expect((await read()).agents).toEqual([expect.objectContaining({ name: 'lead', runs: [[3]] })]);
  });
});
