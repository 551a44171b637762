// The TypeScript blocks of README.md and every page under docs/ type-check against the real API (as `cadre`), so a
// renamed option or type cannot leave the docs describing code that no longer compiles.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** README.md and every page under docs/. */
async function pages(): Promise<string[]> {
  const docs = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}
// A block that uses `runtime` without creating it is a continuation of the page's first block.
const PRELUDE = "import type { Runtime } from 'cadre';\ndeclare const runtime: Runtime;\n";

/** The ```ts blocks of a Markdown page. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
}

/** Type errors of `sources` compiled as modules with the project's options. */
function typeErrors(files: string[]): string[] {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true, noUnusedLocals: false });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.includes(d.file.fileName))
    .map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('docs code blocks', () => {
  it('every TypeScript block of the docs type-checks', async () => {
    // Inside the project, so `cadre` resolves (tsconfig paths) and the files are ES modules.
    const dir = await mkdtemp(path.join(ROOT, 'test', 'api', '.doc-blocks-'));
    try {
      const files: string[] = [];
      for (const page of await pages()) {
        const blocks = tsBlocks(await readFile(path.join(ROOT, page), 'utf8'));
        // The library's page and the README show the API; other pages may have none.
        if (page === 'docs/library.md' || page === 'README.md') expect(blocks.length).toBeGreaterThan(0);
        for (const [i, block] of blocks.entries()) {
          const file = path.join(dir, `${path.basename(page, '.md')}-${i}.ts`);
          const prelude = /\bruntime\s*=/.test(block) ? '' : PRELUDE;
          await writeFile(file, `${prelude}${block}\nexport {};\n`);
          files.push(file);
        }
      }
      expect(typeErrors(files)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
