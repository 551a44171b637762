// bench/seccomp: what the set-ID seccomp filter adds to one command, measured side by side. Each
// round spawns, in rotating order: `true` alone; `true` through the unshare backend's perl loader
// (the filter installed by prctl, then exec); bwrap over the host's root running `true`; and the
// same bwrap with `--seccomp 3` reading the filter from a file. The medians of the differences are
// the loader's and bwrap's cost per command. Then the filter's own cost per syscall: dd copying
// byte by byte (400,000 read and write calls) with and without it, rounds interleaved.
// Run: npx tsx bench/seccomp.ts [--rounds N]
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setidFilter } from '../src/host/capabilities/sandbox/seccomp-bpf.js';
import { perlLoader } from '../src/host/capabilities/sandbox/seccomp-load.js';
import { median, writeResult } from './support/stats.js';

const flag = (name: string) => process.argv[process.argv.indexOf(name) + 1];
const rounds = Number(flag('--rounds')) || 200;

/** Wall time of one spawn to its exit, in ms; throws when it fails. */
function timed(file: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

const filter = setidFilter();
if (filter === undefined) throw new Error(`no seccomp filter for ${process.arch}`);
const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-bench-seccomp-'));
const file = path.join(dir, 'setid.bpf');
await writeFile(file, filter.bytes);
const bwrap = ['--dev-bind', '/', '/', '--unshare-user', '--unshare-pid'];
const variants: Record<string, [string, string[]]> = {
  plain: ['/bin/true', []],
  perlLoader: (() => {
    const [perl, ...pre] = perlLoader('/usr/bin/perl', filter);
    return [perl ?? '/usr/bin/perl', [...pre, '/bin/true']];
  })(),
  bwrap: ['/bin/sh', ['-c', `exec /usr/bin/bwrap ${bwrap.join(' ')} /bin/true`]],
  bwrapSeccomp: [
    '/bin/sh',
    ['-c', `exec /usr/bin/bwrap ${bwrap.join(' ')} --seccomp 3 /bin/true 3< ${file}`],
  ],
};
const names = Object.keys(variants);
const times: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const diffs = { perlLoader: [] as number[], bwrapSeccomp: [] as number[] };
const loadAverage = os.loadavg().map((l) => +l.toFixed(1));
try {
  for (let i = 0; i < rounds; i++) {
    const round: Record<string, number> = {};
    // Rotate the order so no variant always runs first (or right after another).
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length] as string;
      const [bin, args] = variants[name] as [string, string[]];
      round[name] = await timed(bin, args);
      times[name]?.push(round[name]);
    }
    diffs.perlLoader.push((round.perlLoader ?? NaN) - (round.plain ?? NaN));
    diffs.bwrapSeccomp.push((round.bwrapSeccomp ?? NaN) - (round.bwrap ?? NaN));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
// The filter's cost per syscall: dd making 2 x SYSCALLS read and write calls, with and without it.
const SYSCALLS = 200_000;
const dd = ['if=/dev/zero', 'of=/dev/null', 'bs=1', `count=${SYSCALLS}`, 'status=none'];
const [perl, ...pre] = perlLoader('/usr/bin/perl', filter);
const heavy = { plain: [] as number[], filtered: [] as number[] };
for (let i = 0; i < Math.max(5, Math.round(rounds / 10)); i++) {
  const plain = await timed('/bin/dd', dd);
  const filtered = await timed(perl ?? '/usr/bin/perl', [...pre, '/bin/dd', ...dd]);
  heavy.plain.push(plain);
  heavy.filtered.push(filtered);
}

const ms = (v: number) => +v.toFixed(2);
const result = {
  rounds,
  interleaved: true,
  filterInstructions: filter.bytes.length / 8,
  loadAverage,
  loadAverageAfter: os.loadavg().map((l) => +l.toFixed(1)),
  medianMs: Object.fromEntries(names.map((n) => [n, ms(median(times[n] ?? []))])),
  addedMedianMs: {
    unshareLoader: ms(median(diffs.perlLoader)),
    bwrapSeccomp: ms(median(diffs.bwrapSeccomp)),
  },
  perSyscall: {
    syscalls: 2 * SYSCALLS,
    plainMedianMs: ms(median(heavy.plain)),
    filteredMedianMs: ms(median(heavy.filtered)),
    // Less the loader's own start: what is left is the filter, run once per syscall.
    addedNs: +(
      ((median(heavy.filtered) - median(heavy.plain) - median(diffs.perlLoader)) * 1e6) /
      (2 * SYSCALLS)
    ).toFixed(1),
  },
};
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${await writeResult('seccomp', result)}`);
