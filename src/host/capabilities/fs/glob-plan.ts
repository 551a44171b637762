// What a glob pattern implies for the walk that serves it: the regex a path must match, the
// literal directories the walk can start in, the names that let it into skipped directories and
// how deep a match can be. Pure: it validates the model's pattern before any directory is read.
import { CadreError } from '../../../shared/errors.js';
import { expandBraces, globToRegExp, hasGlobSyntax } from '../../../shared/glob.js';

/** What the pattern implies for the walk. */
export interface GlobPlan {
  regex: RegExp;
  /** Leading literal directories: the walk starts there; naming them explicitly bypasses ignore rules. */
  prefix: string[];
  /** Literal segments anywhere in the pattern: naming node_modules or .git lets the walk enter them. */
  named: Set<string>;
  /** Deepest match possible, in segments below the root (Infinity with `**`). */
  maxDepth: number;
}

/** Validates a pattern and derives the walk plan. Throws `invalid_input`. */
export function planGlob(rawPattern: string): GlobPlan {
  const pattern = rawPattern.replace(/^(\.\/)+/, '');
  if (pattern === '') throw new CadreError('invalid_input', 'the glob pattern is empty');
  if (pattern.startsWith('/')) {
    throw new CadreError(
      'invalid_input',
      `glob "${rawPattern}" is absolute; pass the directory as path and a relative pattern`,
    );
  }
  let expansions: string[];
  let regex: RegExp;
  try {
    expansions = expandBraces(pattern);
    regex = globToRegExp(pattern, { dot: true });
  } catch (error) {
    throw new CadreError('invalid_input', `bad glob "${rawPattern}": ${(error as Error).message}`);
  }
  const named = new Set<string>();
  let maxDepth = 0;
  for (const expansion of expansions) {
    const segments = expansion.split('/');
    if (segments.includes('..'))
      throw new CadreError('invalid_input', `glob "${rawPattern}" may not contain ".." segments`);
    maxDepth = segments.includes('**') ? Infinity : Math.max(maxDepth, segments.length);
    for (const seg of segments) if (!hasGlobSyntax(seg)) named.add(seg);
  }
  const segments = pattern.split('/');
  const prefix: string[] = [];
  for (const seg of segments.slice(0, -1)) {
    if (hasGlobSyntax(seg) || seg === '.' || seg === '') break;
    prefix.push(seg);
  }
  return { regex, prefix, named, maxDepth };
}
