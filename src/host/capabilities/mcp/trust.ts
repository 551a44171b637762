// Trust in project MCP servers. A server a project configures (`.mcp.json`, the project's
// config.json, an agent file in the project) runs a command or sends headers chosen by whoever
// wrote the repository, so it starts only once the user trusts it. Records live in the user's
// data directory (`~/.cadre/mcp-trust.json`), never in the project, keyed by the project's real
// path and the server, and bound to a hash of its configuration as written and of the project files
// its command line names (trust-program.ts): any change to the command, arguments, environment,
// URL or headers, or to a program in the project it runs, needs trusting again.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import type { McpSource } from './server-spec.js';
import { programState } from './trust-program.js';

/** The trust file as stored. */
interface TrustFile {
  version: 1;
  projects: Record<string, Record<string, string>>;
}

/** Where trust records are kept. */
export function trustFilePath(home: string): string {
  return path.join(home, '.cadre', 'mcp-trust.json');
}

/** How a project server is named in trust records and messages: `server`, or `agent/server` when inline. */
export function trustId(source: Pick<McpSource, 'name' | 'agent'>): string {
  return source.agent === undefined ? source.name : `${source.agent}/${source.name}`;
}

/**
 * The hash a trust record holds: of the configuration as written (keys sorted), variables
 * unexpanded, and of the project files its command line names.
 */
function configHash(projectDir: string, source: Pick<McpSource, 'config'>): string {
  const program = programState(source.config, projectDir);
  const text = program === '' ? canonical(source.config) : `${canonical(source.config)}\n${program}`;
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** The trust records of one user. */
export class TrustStore {
  private constructor(
    readonly file: string,
    private data: TrustFile,
  ) {}

  /** Reads the records; a missing or unreadable file trusts nothing. */
  static async open(home: string): Promise<TrustStore> {
    const file = trustFilePath(home);
    const empty: TrustFile = { version: 1, projects: {} };
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<TrustFile> | null;
      const projects =
        parsed && typeof parsed.projects === 'object' && parsed.projects ? parsed.projects : {};
      return new TrustStore(file, { version: 1, projects: sanitize(projects) });
    } catch {
      return new TrustStore(file, empty);
    }
  }

  /** True when `source` is user-scoped, or trusted for `projectDir` with exactly this configuration. */
  isTrusted(projectDir: string, source: McpSource): boolean {
    if (source.scope === 'user') return true;
    return this.data.projects[projectDir]?.[trustId(source)] === configHash(projectDir, source);
  }

  /** Records trust in `sources` for `projectDir` and writes the file (atomically). */
  async trust(projectDir: string, sources: readonly McpSource[]): Promise<void> {
    const records = { ...this.data.projects[projectDir] };
    for (const source of sources) records[trustId(source)] = configHash(projectDir, source);
    await this.write({ ...this.data.projects, [projectDir]: records });
  }

  /** Forgets trust in the named servers (all of the project's when `ids` is empty). */
  async revoke(projectDir: string, ids: readonly string[]): Promise<string[]> {
    const records = { ...this.data.projects[projectDir] };
    const removed = ids.length === 0 ? Object.keys(records) : ids.filter((id) => id in records);
    for (const id of removed) delete records[id];
    const projects = { ...this.data.projects, [projectDir]: records };
    if (Object.keys(records).length === 0) delete projects[projectDir];
    await this.write(projects);
    return removed;
  }

  private async write(projects: TrustFile['projects']): Promise<void> {
    const next: TrustFile = { version: 1, projects };
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      await mkdir(path.dirname(this.file), { recursive: true });
      await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      await rename(temp, this.file);
    } catch (error) {
      throw new CadreError('io_error', `cannot write ${this.file}: ${(error as Error).message}`);
    }
    this.data = next;
  }
}

/** Keeps only string-to-string records: a hand-edited file never trusts by accident. */
function sanitize(projects: object): TrustFile['projects'] {
  const out: TrustFile['projects'] = {};
  for (const [dir, records] of Object.entries(projects)) {
    if (typeof records !== 'object' || records === null) continue;
    const kept: Record<string, string> = {};
    for (const [id, hash] of Object.entries(records as Record<string, unknown>))
      if (typeof hash === 'string') kept[id] = hash;
    out[dir] = kept;
  }
  return out;
}
