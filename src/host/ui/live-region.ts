// A redrawn block of lines at the bottom of a terminal stream (the tree of `cadre explore`, the
// approval prompt of `cadre run`), with permanent lines printed above it. Redraws are batched (at
// most one per interval; an urgent one, such as a new approval, at once) and every line is cut to
// the terminal's width, so the block never wraps and always erases cleanly. Only for a TTY: off a
// TTY the commands print plain lines and never an escape sequence.
import type { StyledLine, Tone } from './approval-view.js';
import { clipLine } from './terminal-text.js';

/** The stream a region draws on (process.stderr, or a test's). */
export interface RegionStream {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
}

/** Options of a region. */
export interface LiveRegionOptions {
  /** Least time between two redraws (default 50 ms). */
  intervalMs?: number;
  /** No colours (the NO_COLOR convention). */
  noColor?: boolean;
}

const SGR: Record<Tone, string> = {
  title: '\x1b[1m',
  body: '',
  dim: '\x1b[2m',
  add: '\x1b[32m',
  remove: '\x1b[31m',
  keys: '\x1b[36m',
  warn: '\x1b[33m',
};

/** A block of lines redrawn in place. */
export class LiveRegion {
  private drawn = 0;
  private lines: StyledLine[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastDraw = 0;
  private closed = false;

  constructor(
    private readonly stream: RegionStream,
    private readonly options: LiveRegionOptions = {},
  ) {}

  /** Terminal columns (a line is cut one short of them, so it never wraps). */
  get width(): number {
    return Math.max(20, (this.stream.columns ?? 80) - 1);
  }

  /** Terminal rows. */
  get height(): number {
    return Math.max(10, this.stream.rows ?? 24);
  }

  /** Replaces the block; drawn within the interval, or at once when `urgent`. */
  set(lines: StyledLine[], urgent = false): void {
    if (this.closed) return;
    this.lines = lines;
    const wait = (this.options.intervalMs ?? 50) - (performance.now() - this.lastDraw);
    if (urgent || wait <= 0) {
      this.draw();
      return;
    }
    this.timer ??= setTimeout(() => this.draw(), wait);
    this.timer.unref?.();
  }

  /** Prints `text` (sanitized) above the block, which is drawn again below it. */
  log(text: string): void {
    if (this.closed) {
      this.stream.write(text);
      return;
    }
    this.stream.write(this.erase() + text);
    this.drawn = 0;
    this.draw();
  }

  /** Removes the block and stops drawing; later `log` calls print plainly. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.closed) this.stream.write(this.erase());
    this.drawn = 0;
    this.closed = true;
  }

  private erase(): string {
    return this.drawn > 0 ? `\r\x1b[${this.drawn}A\x1b[J` : '';
  }

  private paint(line: StyledLine): string {
    const text = clipLine(line.text, this.width);
    const sgr = this.options.noColor ? '' : SGR[line.tone];
    return sgr ? `${sgr}${text}\x1b[0m` : text;
  }

  private draw(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    this.lastDraw = performance.now();
    // Never taller than the terminal: a block that scrolls off cannot be erased.
    const shown = this.lines.slice(-Math.max(1, this.height - 2));
    const body = shown.map((l) => `${this.paint(l)}\n`).join('');
    this.stream.write(this.erase() + body);
    this.drawn = shown.length;
  }
}
