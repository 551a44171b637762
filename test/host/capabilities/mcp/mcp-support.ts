// Helpers for MCP tests: the fixture servers' configuration, their event logs, and which of their
// processes are alive (read from /proc, so a test sees what really runs, sandboxed or not).
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The stdio fixture server. */
export const STDIO_SERVER = path.resolve(here, '../../../fixtures/mcp/stdio-server.mjs');
/** The HTTP fixture server (Streamable HTTP and legacy SSE). */
export const HTTP_SERVER = path.resolve(here, '../../../fixtures/mcp/http-server.mjs');

/** One event the fixture logged. */
export interface FixtureEvent {
  at: number;
  pid: number;
  event: string;
  tool?: string;
  requestId?: number | string;
  reason?: string;
  child?: number;
  home?: string;
  secret?: string | null;
  [key: string]: unknown;
}

/** A fresh directory for a fixture's log. */
export async function logDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'cadre-mcp-log-'));
}

/** The stdio fixture's configuration, logging to `log` (writable from its sandbox). */
export function stdioConfig(log: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { env, ...rest } = extra as { env?: Record<string, string> };
  return {
    command: process.execPath,
    // The log path makes the command line unique: processesWith(log) finds this test's servers.
    args: [STDIO_SERVER, log],
    env: { MCP_FIXTURE_LOG: log, ...env },
    sandbox: { writable: [path.dirname(log)] },
    ...rest,
  };
}

/** The events in `log` so far. */
export function readLog(log: string): FixtureEvent[] {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as FixtureEvent);
}

/** Pids of live processes whose command line contains `needle` (or starts with it, with `prefix`). */
export function processesWith(needle: string, prefix = false): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      const match = prefix ? cmdline.startsWith(needle) : cmdline.includes(needle);
      if (match && state !== 'Z') out.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return out;
}

/** Live fixture server processes logging to `log` (node itself, not the bubblewrap around it). */
export function serverProcesses(log: string): number[] {
  return processesWith(`${process.execPath} ${STDIO_SERVER} ${log}`, true);
}

/** Live grandchildren the fixture servers logging to `log` started. */
export function grandchildren(log: string): number[] {
  return processesWith(`cadre-fixture-grandchild ${log}`).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${process.execPath}\0-e\0`);
    } catch {
      return false;
    }
  });
}

/** True while `pid` is a live (not zombie) process. */
export function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z';
  } catch {
    return false;
  }
}

/** Waits until `check` is true (polling), or fails after `ms`. */
export async function until(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
