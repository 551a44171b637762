// Asks questions the way a user does: the compiled CLI, `cadre explore "question" ... --json`, in
// the package's directory, with no API key (so the embedded offline model answers) and a home
// directory of its own (so no user config changes the outcome).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPORT_RESOURCES } from '../../test/support/cli.js';
import { EVAL_DIR } from './corpora.js';

/** The compiled CLI. */
export const CLI = path.resolve(EVAL_DIR, '..', '..', 'dist', 'host', 'cli', 'cadre.mjs');

/** What one explore run gave. */
export interface ExploreRun {
  status: string;
  report: string;
  /** The run's own duration, as the TaskOutput reports it. */
  durationMs: number;
  /** The whole CLI process, start to exit. */
  wallMs: number;
  /** CPU time of the whole CLI process (every thread), as it reported at exit. */
  cpuMs: number;
  toolCalls: number;
}

interface TaskOutputJson {
  status?: string;
  result?: string;
  durationMs?: number;
  toolCalls?: number;
}

/**
 * Runs `cadre explore <questions...> --json` in `dir`: one process, one agent per question, all at
 * once (the process's wall and CPU time are then shared by the questions).
 */
export async function exploreAll(dir: string, questions: readonly string[]): Promise<ExploreRun[]> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'cadre-eval-home-'));
  try {
    const started = performance.now();
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn(process.execPath, [...REPORT_RESOURCES, CLI, 'explore', ...questions, '--json'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: home },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    const wallMs = performance.now() - started;
    const usage = stderr.split('\n').find((l) => l.startsWith('{"cadreResources"'));
    const resources = usage
      ? (JSON.parse(usage) as { cadreResources: { userUs: number; systemUs: number } }).cadreResources
      : undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(stdout);
    } catch {
      throw new Error(`cadre explore exited ${code} without JSON output: ${stderr.slice(-500)}`);
    }
    const outputs = (Array.isArray(parsed) ? parsed : []) as TaskOutputJson[];
    return questions.map((_, i) => ({
      status: outputs[i]?.status ?? 'missing',
      report: outputs[i]?.result ?? '',
      durationMs: outputs[i]?.durationMs ?? NaN,
      wallMs,
      cpuMs: resources ? (resources.userUs + resources.systemUs) / 1000 : NaN,
      toolCalls: outputs[i]?.toolCalls ?? 0,
    }));
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Runs `cadre explore <question> --json` in `dir`, one process for the one question. */
export async function explore(dir: string, question: string): Promise<ExploreRun> {
  const [run] = await exploreAll(dir, [question]);
  if (run === undefined) throw new Error('cadre explore gave no output');
  return run;
}
