// Drives a real program on a real terminal: a private tmux server (its own socket, no config file),
// one key per send-keys, and the screen read back with capture-pane. The program runs under bash,
// which prints its exit status when it ends and keeps the pane open, so a test can read both.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Options of a session. */
export interface TmuxOptions {
  cwd: string;
  env: Record<string, string>;
  width?: number;
  height?: number;
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One program on its own tmux server. */
export class TmuxSession {
  private constructor(private readonly socket: string) {}

  /** Starts `argv` in a detached session of a fresh server. */
  static async start(argv: string[], options: TmuxOptions): Promise<TmuxSession> {
    const socket = `cadre-test-${process.pid}-${randomUUID().slice(0, 8)}`;
    const env = Object.entries(options.env).map(([k, v]) => `${k}=${v}`);
    const script = `env ${env.map(quote).join(' ')} ${argv.map(quote).join(' ')}; echo "[exit $?]"; sleep 3600`;
    await run(
      'tmux',
      [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'main',
        '-x',
        String(options.width ?? 120),
        '-y',
        String(options.height ?? 40),
        '-c',
        options.cwd,
        'bash',
        '--norc',
        '--noprofile',
        '-c',
        script,
      ],
      {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: options.env.HOME ?? '/tmp',
          TERM: 'xterm-256color',
        },
      },
    );
    return new TmuxSession(socket);
  }

  private tmux(...args: string[]): Promise<{ stdout: string }> {
    return run('tmux', ['-L', this.socket, ...args]);
  }

  /** The visible screen, as text. */
  async screen(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-t', 'main')).stdout;
  }

  /** The screen and its scrollback. */
  async history(): Promise<string> {
    return (await this.tmux('capture-pane', '-p', '-S', '-2000', '-t', 'main')).stdout;
  }

  /** Polls the screen until `pattern` shows; fails with the last screen after `timeoutMs`. */
  async waitFor(
    pattern: RegExp,
    timeoutMs = 20_000,
    where: 'screen' | 'history' = 'screen',
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let text = '';
    while (Date.now() < deadline) {
      text = where === 'screen' ? await this.screen() : await this.history();
      if (pattern.test(text)) return text;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${String(pattern)}; the screen was:\n${text}`);
  }

  /** Sends one key (a tmux key name such as `Enter`, `Escape`, `C-c`, or one character). */
  async key(name: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'main', name);
  }

  /** Types `text` one key per send-keys call, as a person would. */
  async type(text: string): Promise<void> {
    for (const ch of text) await this.tmux('send-keys', '-t', 'main', '-l', ch);
  }

  /** Stops the server and everything in it, and removes its socket. */
  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
    const dir = process.env.TMUX_TMPDIR ?? '/tmp';
    await rm(path.join(dir, `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
  }
}
