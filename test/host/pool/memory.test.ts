// Memory faults, measured per Node version. Thread mode relies on V8's per-thread limits, which hold
// for many small allocations everywhere but not for every allocation shape; process isolation holds
// for all of them. Each case runs in a child process so a V8 abort cannot take the test runner down.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hostHeapSamplingSupported } from '../../../src/host/pool/worker-flags.js';
import { NODE_TSX } from '../../support/cli.js';

const child = fileURLToPath(new URL('../../fixtures/oom-child.ts', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
const sampling = hostHeapSamplingSupported();

function runFault(fault: string, isolation: 'thread' | 'process', capMb = 128) {
  const r = spawnSync(process.execPath, [...NODE_TSX, child, fault, isolation, String(capMb)], {
    encoding: 'utf8',
    timeout: 90_000,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let report: { status?: string; reason?: string; after?: string } | undefined;
  try {
    report = JSON.parse(line) as typeof report;
  } catch {
    report = undefined;
  }
  return { code: r.status, signal: r.signal, report, stderr: r.stderr };
}

describe('process isolation holds for every allocation shape', () => {
  for (const fault of ['oom-small', 'oom-array', 'oom-map']) {
    it(`${fault}: crashed / out_of_memory, and the host runs the next task`, () => {
      const r = runFault(fault, 'process');
      expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
      expect(r.code).toBe(0);
    }, 90_000);
  }
});

describe('thread mode, as measured on each Node version', () => {
  it('many small allocations: crashed / out_of_memory with the host alive (all versions)', () => {
    const r = runFault('oom-small', 'thread');
    expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
  }, 90_000);

  // Where Node offers worker.getHeapStatistics() (24, and 22.16+) the host samples thread heaps;
  // elsewhere (Node 20, 22 before 22.16) only V8's per-thread limit stands between a runaway
  // structure and the process. Node 22.0-22.15 was not measured: those cases are skipped there.
  const unmeasured = major === 22 && !sampling;

  it.skipIf(unmeasured)(
    `one growing array: ${sampling ? 'caught by heap sampling' : 'aborts the process on Node 20'}`,
    () => {
      const r = runFault('oom-array', 'thread');
      if (sampling)
        expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
      else {
        expect(r.report).toBeUndefined();
        expect(r.code === 0 && r.signal === null).toBe(false);
        expect(r.stderr).toMatch(/heap out of memory|Fatal|allocation failed/i);
      }
    },
    90_000,
  );

  it.skipIf(unmeasured)(
    `a growing Map at a 128 MB cap: ${sampling ? 'caught by host-side heap sampling' : 'aborts the process on Node 20 (use isolation: "process")'}`,
    () => {
      const r = runFault('oom-map', 'thread');
      if (sampling)
        expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
      else {
        expect(r.report).toBeUndefined();
        expect(r.code === 0 && r.signal === null).toBe(false);
      }
    },
    90_000,
  );

  // Where the host samples heaps, V8's own limit sits at twice the cap: a structure that doubles
  // its storage in one step overshoots the cap without reaching V8's limit, and the next sample
  // ends the run. Without that backstop, whether a doubling Map was caught depended on where its
  // doublings fell against the cap (it aborted at 512 MB, and at 128 MB after a smaller bundle).
  it.runIf(sampling).each([
    ['oom-map', 64],
    ['oom-map', 512],
    ['oom-array', 512],
  ] as const)(
    '%s at a %i MB cap: caught by heap sampling',
    (fault, capMb) => {
      const r = runFault(fault, 'thread', capMb);
      expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
    },
    90_000,
  );
});
