// Where git looks for the project's hooks when `core.hooksPath` moves them out of .git/hooks (husky
// sets `.husky/_`, many projects a tracked `.githooks`): that directory runs code on the host as
// surely as .git/hooks does, so the sandbox protects it too.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** `core.hooksPath` from git config text, if set (the last one wins, as in git). */
export function hooksPathFrom(text: string): string | undefined {
  let inCore = false;
  let found: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (section) {
      inCore = (section[1] ?? '').toLowerCase() === 'core';
      continue;
    }
    const value = inCore ? /^hookspath\s*=\s*(.*)$/i.exec(line)?.[1] : undefined;
    if (value !== undefined) found = value.replace(/^"(.*)"$/, '$1').trim();
  }
  return found;
}

/** A small config file's text, or '' when it cannot be read (synchronous: three small files per command). */
function readSmall(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The project-relative hooks directory named by `core.hooksPath` in the project's .git/config or
 * the user's ~/.gitconfig or ~/.config/git/config (the first that sets it, as git's precedence
 * goes), when it lies inside the project (outside, it is read-only anyway).
 */
export function projectHooksPath(projectDir: string, home: string | undefined): string[] {
  const files = [
    path.join(projectDir, '.git', 'config'),
    ...(home ? [path.join(home, '.gitconfig'), path.join(home, '.config', 'git', 'config')] : []),
  ];
  for (const file of files) {
    const value = hooksPathFrom(readSmall(file));
    if (value === undefined || value === '') continue;
    const expanded = value.startsWith('~/') && home ? path.join(home, value.slice(2)) : value;
    const abs = path.resolve(projectDir, expanded);
    const rel = path.relative(projectDir, abs);
    return rel === '' || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel) ? [] : [rel];
  }
  return [];
}
