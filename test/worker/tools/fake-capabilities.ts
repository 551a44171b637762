// An in-memory project for tool tests: a GrantedCapabilities object over a path -> file map,
// with a fake clock for mtimes, injected denials and a scripted exec.run.
import type {
  CapabilityName,
  ExecRunRequest,
  ExecRunResult,
  FsGlobRequest,
  FsGlobResult,
  FsStatResult,
  GrantedCapabilities,
} from '../../../src/shared/capabilities.js';
import type { Envelope, WireError } from '../../../src/shared/errors.js';
import { matchGlob } from '../../../src/shared/glob.js';
import { DEFAULT_CAPS } from '../../../src/shared/run-spec.js';
import type { RunCaps } from '../../../src/shared/run-spec.js';
import type { ToolContext } from '../../../src/worker/tools/tool.js';

/** The project directory the fake pretends to be rooted at. */
export const CWD = '/proj';

/** A file in the fake project. */
export interface FakeFile {
  content: string;
  mtimeMs: number;
}

/** The fake project and the knobs tests turn. */
export class FakeProject {
  readonly files = new Map<string, FakeFile>();
  readonly calls: { name: CapabilityName; request: unknown }[] = [];
  readonly denials = new Map<CapabilityName, WireError>();
  /** What the host's walk says with each fs.glob and fs.readMany {glob} answer. */
  walkNotices: string[] = [];
  exec: (req: ExecRunRequest) => ExecRunResult = () => {
    throw new Error('exec not scripted');
  };
  private clock = 1_000;

  constructor(files: Record<string, string> = {}) {
    for (const [path, content] of Object.entries(files)) this.put(path, content);
  }

  /** Creates or changes a file "outside" the run, advancing the clock. */
  put(path: string, content: string): void {
    this.clock += 10;
    this.files.set(path, { content, mtimeMs: this.clock });
  }

  /** The project-relative key of a path given as the model might give it. */
  key(path: string): string {
    let p = path.startsWith(`${CWD}/`) ? path.slice(CWD.length + 1) : path === CWD ? '.' : path;
    if (p.startsWith('./')) p = p.slice(2);
    return p === '' ? '.' : p;
  }

  private stat(path: string): FsStatResult {
    const key = this.key(path);
    const file = this.files.get(key);
    if (file)
      return { path: key, exists: true, type: 'file', size: file.content.length, mtimeMs: file.mtimeMs };
    const prefix = key === '.' ? '' : `${key}/`;
    const isDir = key === '.' || [...this.files.keys()].some((k) => k.startsWith(prefix));
    return isDir
      ? { path: key, exists: true, type: 'directory', size: 0, mtimeMs: 0 }
      : { path: key, exists: false, type: 'missing', size: 0, mtimeMs: 0 };
  }

  /** fs.glob's answer over the fake files. */
  private glob(req: FsGlobRequest): FsGlobResult {
    const base = req.path === undefined ? '.' : this.key(req.path);
    const prefix = base === '.' ? '' : `${base}/`;
    const matches = [...this.files.entries()]
      .filter(([k]) => k.startsWith(prefix) && matchGlob(k.slice(prefix.length), req.pattern))
      .sort((a, b) => (req.sort === 'path' ? (a[0] < b[0] ? -1 : 1) : b[1].mtimeMs - a[1].mtimeMs))
      .map(([k]) => k);
    const limit = req.limit ?? Infinity;
    const notices = this.walkNotices.length > 0 ? { notices: this.walkNotices } : {};
    return { root: base, files: matches.slice(0, limit), truncated: matches.length > limit, ...notices };
  }

  /** The grant: every fs capability and exec.run, each logging its call and honouring denials. */
  caps(): GrantedCapabilities {
    const guard = async <T>(name: CapabilityName, request: unknown, body: () => T): Promise<Envelope<T>> => {
      this.calls.push({ name, request });
      const denied = this.denials.get(name);
      if (denied) return { ok: false, error: denied };
      try {
        return { ok: true, value: body() };
      } catch (error) {
        const wire = error as WireError;
        if (typeof wire.code === 'string') return { ok: false, error: wire };
        throw error;
      }
    };
    const notFound = (path: string): WireError => ({ code: 'not_found', message: `${path} does not exist` });
    return {
      'fs.read': (req) =>
        guard('fs.read', req, () => {
          const key = this.key(req.path);
          const file = this.files.get(key);
          if (!file) throw notFound(req.path);
          const lines = file.content.split('\n');
          if (lines[lines.length - 1] === '') lines.pop();
          const startLine = req.offset ?? 1;
          const whole = req.offset === undefined && req.limit === undefined;
          const picked = lines.slice(
            startLine - 1,
            req.limit === undefined ? undefined : startLine - 1 + req.limit,
          );
          const content = whole ? file.content : picked.map((l) => `${l}\n`).join('');
          return {
            path: key,
            content,
            startLine,
            totalLines: lines.length,
            truncated: startLine - 1 + picked.length < lines.length,
            size: file.content.length,
            mtimeMs: file.mtimeMs,
          };
        }),
      'fs.readMany': (req) =>
        guard('fs.readMany', req, () => {
          const files: { path: string; content: string; mtimeMs: number }[] = [];
          const skipped: { path: string; reason: string }[] = [];
          // With a glob, the files it finds in path order, as fs.glob lists them (all in one answer).
          const listed = req.glob ? this.glob({ ...req.glob, sort: 'path' }) : undefined;
          for (const path of listed?.files ?? req.paths) {
            const file = this.files.get(this.key(path));
            if (!file) skipped.push({ path, reason: 'not found' });
            else if (file.content.includes('\0')) skipped.push({ path, reason: 'binary file' });
            else files.push({ path, content: file.content, mtimeMs: file.mtimeMs });
          }
          return {
            files,
            skipped,
            ...(listed?.truncated ? { truncated: true } : {}),
            ...(listed?.notices ? { notices: listed.notices } : {}),
          };
        }),
      'fs.glob': (req) => guard('fs.glob', req, () => this.glob(req)),
      'fs.stat': (req) => guard('fs.stat', req, () => this.stat(req.path)),
      'fs.list': (req) =>
        guard('fs.list', req, () => {
          const base = this.key(req.path);
          if (this.stat(base).type !== 'directory') throw notFound(req.path);
          const prefix = base === '.' ? '' : `${base}/`;
          const entries = new Map<string, { name: string; type: 'file' | 'directory'; size: number }>();
          for (const [k, file] of this.files) {
            if (!k.startsWith(prefix)) continue;
            const [name = '', ...rest] = k.slice(prefix.length).split('/');
            if ((req.ignore ?? []).some((glob) => matchGlob(name, glob))) continue;
            entries.set(
              name,
              rest.length > 0
                ? { name, type: 'directory', size: 0 }
                : { name, type: 'file', size: file.content.length },
            );
          }
          const sorted = [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
          return { path: `${CWD}/${prefix}`, entries: sorted, truncated: false };
        }),
      'fs.write': (req) =>
        guard('fs.write', req, () => {
          const key = this.key(req.path);
          const current = this.files.get(key);
          if (req.expectedMtimeMs !== undefined && current && current.mtimeMs !== req.expectedMtimeMs) {
            throw {
              code: 'stale_file',
              message: `${req.path} changed since it was read`,
            } satisfies WireError;
          }
          this.put(key, req.content);
          const written = this.files.get(key);
          return { path: key, bytes: req.content.length, created: !current, mtimeMs: written?.mtimeMs ?? 0 };
        }),
      'exec.run': (req) => guard('exec.run', req, () => this.exec(req)),
    };
  }

  /** A tool context over this project, with a fresh read state unless one is given. */
  context(limits: Partial<RunCaps> = {}, readState = new Map<string, { mtimeMs: number }>()): ToolContext {
    return { caps: this.caps(), cwd: CWD, limits: { ...DEFAULT_CAPS, ...limits }, readState };
  }

  /** How many calls of one capability were made. */
  count(name: CapabilityName): number {
    return this.calls.filter((call) => call.name === name).length;
  }
}
