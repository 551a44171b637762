// The split of the suite into the fast and slow projects (vitest.config.ts): every slow entry
// names a test file that exists, so a renamed slow file cannot drift into the fast inner loop
// unnoticed, and no test file is left out of both projects.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchGlob } from '../../src/shared/glob.js';
import { SLOW_TESTS } from '../support/slow-tests.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every test file under test/, relative to the root with forward slashes. */
function testFiles(dir = 'test'): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...testFiles(rel));
    else if (/\.test\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

describe('the test projects', () => {
  const files = testFiles();

  it('finds the suite', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it.each(SLOW_TESTS.map((glob) => [glob]))('slow entry %s names an existing test file', (glob) => {
    expect(files.filter((file) => matchGlob(file, glob))).not.toEqual([]);
  });

  it('keeps most files in the fast project', () => {
    const slow = files.filter((file) => SLOW_TESTS.some((glob) => matchGlob(file, glob)));
    expect(slow.length).toBeGreaterThan(0);
    expect(slow.length).toBeLessThan(files.length / 4);
  });
});
