// Runs the compiled CLI as a child process and collects its own resource report (peak RSS, CPU),
// printed at exit by the preloaded test/support/report-resources.mjs.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPORT_RESOURCES } from '../../test/support/cli.js';

/** What the CLI reported about itself. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  maxRssMb: number;
  cpuSeconds: number;
  /** When the process was spawned, in epoch milliseconds (comparable with another process's clock). */
  spawnedAt: number;
}

/**
 * Runs `node <dist>/host/cli/cadre.mjs ...args`, under `launcher` when given (such as
 * `['chrt', '-f', '50']`, so other work on a shared machine does not preempt it). `dist` defaults
 * to the build in ./dist; another copy of a build (an A/B of two builds) must sit where its imports
 * resolve to this node_modules.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  launcher: readonly string[] = [],
  dist = 'dist',
): Promise<CliRun> {
  const started = performance.now();
  const cli = path.resolve(dist, 'host', 'cli', 'cadre.mjs');
  const [command, ...prefix] = [...launcher, process.execPath];
  return new Promise((resolve, reject) => {
    const child = spawn(command ?? process.execPath, [...prefix, ...REPORT_RESOURCES, cli, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = stderr.split('\n').find((l) => l.startsWith('{"cadreResources"'));
      const report = line
        ? (JSON.parse(line) as { cadreResources: { maxRSSKb: number; userUs: number; systemUs: number } })
            .cadreResources
        : undefined;
      resolve({
        code,
        stdout,
        stderr,
        wallMs: performance.now() - started,
        maxRssMb: report ? report.maxRSSKb / 1024 : NaN,
        cpuSeconds: report ? (report.userUs + report.systemUs) / 1e6 : NaN,
        spawnedAt: performance.timeOrigin + started,
      });
    });
  });
}
