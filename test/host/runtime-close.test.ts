// runtime.close() ends every run, and a run's end stops the I/O work it started: a Grep walking a
// tree that takes seconds (a .gitignore of 10,000 rules over 4,000 files) leaves no I/O thread busy
// shortly after close, instead of walking on for other runs to wait behind.
import { afterEach, describe, expect, it } from 'vitest';
import { ioPoolStats } from '../../src/host/capabilities/fs/io-pool.js';
import { textReply, toolUseReply } from '../support/fake-anthropic.js';
import { startHarness, type Harness } from './agents/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('runtime.close()', () => {
  it('stops the walks of the runs it ends', async () => {
    const files: Record<string, string> = {
      '.gitignore': Array.from({ length: 10_000 }, (_, i) => `nomatch-${i}-*.zzz`).join('\n'),
    };
    for (let i = 0; i < 4000; i++) files[`src/f${i}.txt`] = 'x\n';
    h = await startHarness(
      {
        searcher: ({ turn }) =>
          turn === 0
            ? toolUseReply([
                { name: 'Grep', input: { pattern: 'needle', output_mode: 'files_with_matches' } },
              ])
            : textReply('done'),
      },
      { searcher: { tools: ['Grep'] } },
      { files },
    );
    let grepping = false;
    const handle = await h.runtime.task(
      { subagent_type: 'searcher', prompt: 'search' },
      {
        onEvent: (event) => {
          if (event.type === 'tool-call') grepping = true;
        },
      },
    );
    await until(() => grepping && ioPoolStats().busy > 0, 10_000);
    // Well into the walk (seconds long), close.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ioPoolStats().busy).toBeGreaterThan(0);
    const closed = performance.now();
    await h.runtime.close();
    expect((await handle.result).status).toBe('cancelled');
    await until(() => ioPoolStats().busy === 0, 1000);
    expect(performance.now() - closed).toBeLessThan(1000);
  });
});
