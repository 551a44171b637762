// What the CLI's writers print: long text in slices that the terminal cleaner sees whole where it
// matters, and a refusal's progress line naming the rule that would allow it, once.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events.js';
import { writeLong } from '../../../src/host/cli/context.js';
import { progressPrinter } from '../../../src/host/cli/commands/progress.js';
import { EffectTally } from '../../../src/host/agents/effect-tally.js';
import { refusalText } from '../../../src/host/refusal-text.js';
import { terminalCleaner, terminalText } from '../../../src/host/terminal-text.js';

const MiB = 1024 * 1024;

function written(text: string, clean?: (t: string) => string): { out: string; writes: number } {
  const parts: string[] = [];
  writeLong((t) => parts.push(t), text, clean);
  return { out: parts.join(''), writes: parts.length };
}

describe('writeLong', () => {
  it('cleans a long text slice by slice exactly as it would clean it whole', () => {
    // A tag character (a surrogate pair) across the first slice boundary, and a CRLF near the second.
    const text =
      'a'.repeat(MiB - 1) +
      '\u{E0041}' +
      '\x1b]52;c;x\x07'.repeat(3) +
      'b'.repeat(MiB - 40) +
      '\r\n' +
      'c'.repeat(100) +
      '👨\u200d👩';
    const { out, writes } = written(text, terminalText);
    expect(writes).toBeGreaterThan(1);
    expect(out).toBe(terminalText(text));
    expect(out).toContain('<U+E0041>');
  });

  it('without a cleaner writes the text unchanged', () => {
    const text = `${'x'.repeat(MiB + 5)}\x1b[2J`;
    expect(written(text).out).toBe(text);
  });
});

describe('refusal lines', () => {
  const stamp = { agentId: 'doer-1', depth: 0, at: 0 };
  const refusal = (reason: string, allow?: string[]): AgentEvent => ({
    ...stamp,
    type: 'effect-refused',
    capability: 'fs.write',
    summary: 'out.txt (4 chars)',
    code: 'approval_denied',
    reason,
    ...(allow ? { allow } : {}),
  });

  it('adds the allow rules the first sentence does not name', () => {
    expect(
      refusalText({
        reason: 'fs.write was not run: it needs approval. To allow it, add "Edit(out.txt)". Do not retry.',
        allow: ['Edit(out.txt)'],
      }),
    ).toBe('fs.write was not run: it needs approval. Allow it with "Edit(out.txt)".');
  });

  it('keeps a one-sentence reason whole, and names its rule once', () => {
    const reason =
      '".env" is a sensitive file (.env) and is not read by default; allow it with an allow rule that names it, such as "Read(.env)"';
    expect(refusalText({ reason, allow: ['Read(.env)'] })).toBe(reason);
  });

  it('prints one cleaned line per refusal and counts them on the run end line', () => {
    const lines: string[] = [];
    const tally = new EffectTally();
    const print = progressPrinter(
      { stdout: () => undefined, stderr: (t) => lines.push(t) },
      undefined,
      terminalCleaner(false),
      tally,
    );
    print(refusal('fs.write was not run\x1b[2J: it needs approval.', ['Edit(out\x1b]0;x\x07.txt)']));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      '  ✗ refused: out.txt (4 chars) — fs.write was not run␛[2J: it needs approval. Allow it with "Edit(out␛]0;x␇.txt)".\n',
    );
    expect(tally.counts('doer-1')).toMatchObject({ refused: 1, refusedChanges: 1 });
  });
});
