// What every `cadre` subcommand receives: where to write, the environment, and the global flags
// (`--cwd`, `--agents`) resolved and checked in one place.
import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { terminalCleaner, type TerminalCleaner } from '../terminal-text.js';
import { jsonPieces, jsonText } from '../json-pieces.js';
import type { Runtime, RuntimeOptions } from '../runtime.js';

/** Output sinks, so tests and other front ends can capture what a command prints. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Shared state of one CLI invocation. A command sets `exitCode` instead of exiting the process. */
export interface CliContext {
  io: CliIO;
  env: NodeJS.ProcessEnv;
  /** The directory `--cwd` is relative to (the process's working directory). */
  processCwd: string;
  exitCode: number;
  /**
   * How to start this very command again in a child process (the `cadre` script and its
   * arguments). Set only when running as the executable; `cadre batch` uses it to supervise itself.
   */
  relaunch?: { script: string; args: readonly string[] };
  /** Loads an ES module; the executable provides one, since the bundled CLI's import() cannot. */
  importModule?: (specifier: string) => Promise<unknown>;
  /**
   * Starts the runtime of `run`, `explore`, `batch` and `chat` (default `createRuntime`): cadre's
   * own tests pass one whose agents run in test-only workers.
   */
  startRuntime?: (options: RuntimeOptions) => Promise<Runtime>;
  /**
   * The terminal, when standard input and standard error are both TTYs: commands then ask the
   * person instead of denying, and draw live progress. Absent in pipes, CI and tests in-process.
   */
  terminal?: {
    stdin: NodeJS.ReadStream;
    stderr: NodeJS.WriteStream;
    stdout: NodeJS.WriteStream;
  };
}

/** The global flags, resolved. */
export interface GlobalOptions {
  /** The project directory (absolute). */
  cwd: string;
  /** The home directory holding the user level. */
  home: string;
  /** The raw `--agents` value: inline JSON or a file path. */
  agents?: string;
  /** `--raw`: print model- and file-controlled text unchanged. */
  raw: boolean;
  /** How such text is printed: made inert (terminal-text.ts), or as it is with `--raw`. */
  clean: TerminalCleaner;
}

/** Characters per write of `writeLong`. */
const SLICE = 1024 * 1024;

/**
 * Writes `text` in slices of about 1 MiB, each passed through `clean` (the terminal cleaner, for
 * text a model wrote): a result of tens of MB then costs one slice's buffers at a time instead of
 * more copies of the whole text.
 */
export function writeLong(
  write: (text: string) => void,
  text: string,
  clean: (text: string) => string = (t) => t,
): void {
  if (text.length <= SLICE) return write(clean(text));
  for (let i = 0; i < text.length;) {
    const end = sliceEnd(text, i);
    write(clean(text.slice(i, end)));
    i = end;
  }
}

/**
 * Where a slice from `start` ends: after a line break in its second half when there is one (the
 * cleaner then sees a CRLF or an emoji's joiner whole), and never inside a surrogate pair (a
 * character the cleaner must show could otherwise pass as two halves).
 */
function sliceEnd(text: string, start: number): number {
  let end = Math.min(start + SLICE, text.length);
  if (end === text.length) return end;
  const newline = text.lastIndexOf('\n', end - 1);
  if (newline >= start + SLICE / 2) return newline + 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return end;
}

/**
 * Characters JSON.stringify leaves raw that a terminal acts on or hides: C1 controls (U+009B is a
 * CSI), bidirectional overrides and isolates, zero-width and line-separator characters. In JSON
 * text they occur only inside strings, so writing them as `\uXXXX` keeps the value the same.
 */
const UNSAFE_IN_JSON = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `json` with the characters a terminal would act on escaped (the parsed value is unchanged). */
export function inertJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Writes `value` as indented JSON and a newline, in pieces: a result of tens of MB is never
 * turned into one JSON string (see json-pieces.ts). What a model or a repository wrote reaches a
 * terminal inert: see `inertJson`.
 */
export function writeJson(write: (text: string) => void, value: unknown): void {
  const json = jsonText(value, 2);
  if (json === undefined) return;
  for (const piece of jsonPieces(json)) writeLong(write, inertJson(piece));
  write('\n');
}

/** A mistake in how the command was called: printed without a stack, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A context writing to the real process streams. */
export function processContext(): CliContext {
  // A closed pipe (`cadre agents list | head`) is not an error worth a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return {
    io: { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) },
    env: process.env,
    processCwd: process.cwd(),
    exitCode: 0,
    ...(process.stdin.isTTY && process.stderr.isTTY
      ? { terminal: { stdin: process.stdin, stderr: process.stderr, stdout: process.stdout } }
      : {}),
  };
}

/** Resolves the global flags of `command`; a `--cwd` that is not a directory is a usage error. */
export async function globalOptions(command: Command, ctx: CliContext): Promise<GlobalOptions> {
  const opts = command.optsWithGlobals<{ cwd?: string; agents?: string; raw?: boolean }>();
  const cwd = path.resolve(ctx.processCwd, opts.cwd ?? '.');
  const isDir = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`--cwd: "${opts.cwd ?? cwd}" is not a directory`);
  const home = ctx.env.HOME !== undefined && ctx.env.HOME !== '' ? path.resolve(ctx.env.HOME) : os.homedir();
  const raw = opts.raw === true;
  const out: GlobalOptions = { cwd, home, raw, clean: terminalCleaner(raw) };
  // A file given to --agents is relative to where the command was typed, like any path argument.
  if (opts.agents !== undefined) {
    out.agents = opts.agents.trimStart().startsWith('{')
      ? opts.agents
      : path.resolve(ctx.processCwd, opts.agents);
  }
  return out;
}
