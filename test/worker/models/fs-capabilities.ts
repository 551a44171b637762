// A file-system backed stand-in for the host's fs capabilities (glob, readMany, read, list, stat), so
// the real worker tools can run over a real temp directory in tests without a host or a port.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { GrantedCapabilities } from '../../../src/shared/capabilities.js';
import { globToRegExp } from '../../../src/shared/glob.js';

async function walk(root: string, dir = root): Promise<{ rel: string; mtimeMs: number }[]> {
  const out: { rel: string; mtimeMs: number }[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(root, full)));
    else if (entry.isFile())
      out.push({
        rel: path.relative(root, full).split(path.sep).join('/'),
        mtimeMs: (await fs.stat(full)).mtimeMs,
      });
  }
  return out;
}

/** Capabilities over `root`: paths in and out are relative to it, as the host's are to the project. */
export function fsCapabilities(root: string): GrantedCapabilities {
  const abs = (p: string) => path.resolve(root, p);
  return {
    async 'fs.glob'(req) {
      const base =
        req.path === undefined
          ? ''
          : `${path.relative(root, abs(req.path)).split(path.sep).join('/')}/`.replace(/^\/$/, '');
      const re = globToRegExp(req.pattern, { dot: true });
      const files = (await walk(root))
        .filter((f) => f.rel.startsWith(base) && re.test(f.rel.slice(base.length)))
        .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.rel < b.rel ? -1 : 1)); // newest first, like the host
      const limit = req.limit ?? Infinity;
      return {
        ok: true,
        value: { root, files: files.slice(0, limit).map((f) => f.rel), truncated: files.length > limit },
      };
    },
    async 'fs.readMany'(req) {
      const files: { path: string; content: string }[] = [];
      const skipped: { path: string; reason: string }[] = [];
      // With a glob, the files it finds in path order (all in one answer), as the host reads them.
      let paths = req.paths;
      if (req.glob) {
        const listed = await this['fs.glob']?.({ ...req.glob, sort: 'path' });
        paths = listed?.ok ? [...listed.value.files].sort() : [];
      }
      for (const p of paths) {
        const content = await fs.readFile(abs(p), 'utf8');
        if (content.includes('\0')) skipped.push({ path: p, reason: 'binary' });
        else files.push({ path: p, content });
      }
      return { ok: true, value: { files, skipped } };
    },
    async 'fs.read'(req) {
      let content: string;
      try {
        content = await fs.readFile(abs(req.path), 'utf8');
      } catch {
        return { ok: false, error: { code: 'not_found', message: `${req.path} does not exist` } };
      }
      const lines = content.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const start = req.offset ?? 1;
      const slice = lines.slice(start - 1, start - 1 + (req.limit ?? lines.length));
      const stat = await fs.stat(abs(req.path));
      return {
        ok: true,
        value: {
          path: req.path,
          content: slice.join('\n'),
          startLine: start,
          totalLines: lines.length,
          truncated: start - 1 + slice.length < lines.length,
          size: stat.size,
          mtimeMs: stat.mtimeMs,
        },
      };
    },
    async 'fs.list'(req) {
      const entries = await fs.readdir(abs(req.path), { withFileTypes: true });
      const listed = await Promise.all(
        entries
          .filter((e) => e.name !== '.git' && e.name !== 'node_modules')
          .map(async (e) => ({
            name: e.name,
            type: e.isDirectory() ? ('directory' as const) : ('file' as const),
            size: e.isFile() ? (await fs.stat(path.join(abs(req.path), e.name))).size : 0,
          })),
      );
      listed.sort((a, b) => (a.name < b.name ? -1 : 1));
      return { ok: true, value: { path: req.path, entries: listed, truncated: false } };
    },
    async 'fs.stat'(req) {
      try {
        const stat = await fs.stat(abs(req.path));
        return {
          ok: true,
          value: {
            path: req.path,
            exists: true,
            type: stat.isFile() ? 'file' : 'directory',
            size: stat.size,
            mtimeMs: stat.mtimeMs,
          },
        };
      } catch {
        return { ok: true, value: { path: req.path, exists: false, type: 'missing', size: 0, mtimeMs: 0 } };
      }
    },
  };
}
