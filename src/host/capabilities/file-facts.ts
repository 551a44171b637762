// Facts about a file call that its path alone does not give, found by the capability layer and
// judged by the one policy function: what a file being read begins with (a private key, one of
// cadre's records), what a write would replace (a record) or change (a package.json's scripts),
// and the notice that tells the person which secrets a search left out and the rule that lets one in.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { judgeContext, refusalError, type EffectContext } from './effect-context.js';
import { codeKeysChanged } from './fs/manifest.js';
import { readText } from './fs/read.js';
import { sniffContent } from './fs/sniff.js';
import type { ResolvedPath } from './paths.js';
import { decide } from './policy.js';
import type { PolicyInput } from './policy/types.js';

/**
 * The second look at a file being read, at what it begins with: a private key under any name, or
 * one of cadre's records copied elsewhere, goes back to the policy, which may refuse it.
 */
export function judgeContent(ctx: EffectContext, target: ResolvedPath, head: Uint8Array): void {
  const content = sniffContent(head);
  if (content === undefined) return;
  const verdict = decide({ capability: 'fs.read', path: target, content, ...judgeContext(ctx) });
  if (verdict.decision !== 'allow')
    throw refusalError(verdict.code ?? 'sensitive_path', verdict.reason, verdict.suggestions);
}

/**
 * For a write to a `package.json`: the keys that make npm or a git hook run code (`scripts`, ...)
 * whose value the write changes. Undefined when that cannot be told (the policy then asks).
 */
async function manifestChange(target: ResolvedPath, content: string): Promise<string[] | undefined> {
  // Through a symlink too: the policy judges the path as written and where it leads.
  const named = (p: string) => path.basename(p).toLowerCase() === 'package.json';
  if (!named(target.absolute) && !named(target.real)) return undefined;
  let before: string | undefined;
  if (target.exists) {
    const read = await readText(target.real).catch(() => undefined);
    if (read === undefined) return undefined;
    before = read.content;
  }
  return codeKeysChanged(before, content);
}

/** One notice for the secrets a batch read left out: how many, and the first one's way in. */
export function noticeSecrets(
  ctx: EffectContext,
  skipped: readonly { path: string; reason: string }[],
): void {
  const secrets = skipped.filter((s) => s.reason.includes('is a sensitive file'));
  const first = secrets[0];
  if (first === undefined) return;
  const more = secrets.length > 1 ? ` (and ${secrets.length - 1} more)` : '';
  ctx.notice?.(`a search left out a sensitive file${more}: ${first.reason}`);
}

/**
 * The first bytes of an existing regular file, or undefined when there are none to read (the write
 * then goes to the policy as usual). Opened without blocking: a FIFO must not hold an I/O thread.
 */
async function headOf(real: string): Promise<Uint8Array | undefined> {
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const buf = Buffer.alloc(256);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * What the policy needs to judge a write beyond its path: the package.json keys it changes, and
 * whether the file it replaces is one of cadre's records (a cassette or a copied transcript).
 */
export async function writeFacts(
  target: ResolvedPath,
  content: string,
): Promise<Pick<PolicyInput, 'codeKeysChanged' | 'content'>> {
  const keys = await manifestChange(target, content);
  const head = target.exists ? await headOf(target.real) : undefined;
  const record = head !== undefined && sniffContent(head) === 'cadre-record';
  return {
    ...(keys ? { codeKeysChanged: keys } : {}),
    ...(record ? { content: 'cadre-record' as const } : {}),
  };
}
