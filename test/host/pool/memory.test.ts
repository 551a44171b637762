// Memory faults, measured per Node version. Thread mode relies on V8's per-thread limits, which hold
// for many small allocations everywhere but not for every allocation shape; process isolation holds
// for all of them. Each case runs in a child process so a V8 abort cannot take the test runner down.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('../../fixtures/oom-child.mjs', import.meta.url));
const major = Number(process.versions.node.split('.')[0]);

function runFault(fault: string, isolation: 'thread' | 'process') {
  const r = spawnSync(process.execPath, [child, fault, isolation, '128'], {
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

  it.skipIf(major === 22)(
    `one growing array: ${major >= 24 ? 'held on Node 24' : 'aborts the process on Node 20'}`,
    () => {
      const r = runFault('oom-array', 'thread');
      if (major >= 24)
        expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
      else {
        expect(r.report).toBeUndefined();
        expect(r.code === 0 && r.signal === null).toBe(false);
        expect(r.stderr).toMatch(/heap out of memory|Fatal|allocation failed/i);
      }
    },
    90_000,
  );

  it.skipIf(major === 22)(
    `a growing Map at a 128 MB cap: ${major >= 24 ? 'caught by host-side heap sampling on Node 24' : 'aborts the process on Node 20 (use isolation: "process")'}`,
    () => {
      const r = runFault('oom-map', 'thread');
      if (major >= 24)
        expect(r.report).toEqual({ status: 'crashed', reason: 'out_of_memory', after: 'completed' });
      else {
        expect(r.report).toBeUndefined();
        expect(r.code === 0 && r.signal === null).toBe(false);
      }
    },
    90_000,
  );
});
