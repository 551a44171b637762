// Where cadre keeps its own records of a project: the user's data directory per project
// (`~/.cadre/projects/<slug>/`, config `dataDir` moves the data directory), with the transcripts and
// the hash-chained audit log inside. Records are cadre's state, not project files: the file tools'
// policy refuses every path listed by `recordPaths`, and the command sandbox hides `projectsDir`.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { resolvePath } from '../capabilities/paths.js';

/** The places of one project's records. Every path is absolute. */
export interface RecordsLocation {
  /** cadre's user data directory (config `dataDir`, default `~/.cadre`). */
  dataDir: string;
  /** Where every project's records live: `<dataDir>/projects`. */
  projectsDir: string;
  /** This project's records: `<projectsDir>/<slug>`. */
  dir: string;
  /** Transcripts: config `transcriptsDir`, else `<dir>/transcripts`. */
  transcriptsDir: string;
  /** The append-only, hash-chained audit log. */
  auditLog: string;
  /** How wide each agent fanned out in its latest runs (agents/fanout-memory.ts). */
  fanoutFile: string;
  /** Where earlier versions kept records inside the project (moved out by `migrateLegacyRecords`). */
  legacy: { transcriptsDir: string; auditLog: string };
}

/** What a location is computed from: the project, the home directory, and config. */
export interface LocationInput {
  /** The project directory (absolute, real). */
  cwd: string;
  home: string;
  config: { dataDir?: string; transcriptsDir?: string };
}

/**
 * A directory name for the project: its path with every run of other characters than letters,
 * digits, `.`, `_` and `-` made one `-` (the tail kept when long), and a hash of the whole path so
 * two projects never share one (`/a-b` and `/a/b` flatten alike).
 */
function projectSlug(projectDir: string): string {
  const flat = projectDir.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  const hash = createHash('sha256').update(projectDir).digest('hex').slice(0, 10);
  const tail = flat.length > 80 ? flat.slice(-80).replace(/^[-.]+/, '') : flat;
  return `${tail === '' ? 'root' : tail}-${hash}`;
}

/** The records location of a project. */
export function recordsLocation(input: LocationInput): RecordsLocation {
  const dataDir = input.config.dataDir ?? path.join(input.home, '.cadre');
  const projectsDir = path.join(dataDir, 'projects');
  const dir = path.join(projectsDir, projectSlug(input.cwd));
  return {
    dataDir,
    projectsDir,
    dir,
    transcriptsDir: input.config.transcriptsDir ?? path.join(dir, 'transcripts'),
    auditLog: path.join(dir, 'audit.jsonl'),
    fanoutFile: path.join(dir, 'fanout.json'),
    legacy: {
      transcriptsDir: path.join(input.cwd, '.cadre', 'transcripts'),
      auditLog: path.join(input.cwd, '.cadre', 'audit.jsonl'),
    },
  };
}

/**
 * Every path the file tools must never touch for this location, plus `extra` files (the cassettes a
 * runtime records or replays): each as written and where it really leads (symlinks followed as
 * far as the path exists), deduplicated.
 */
export async function recordPaths(loc: RecordsLocation, extra: readonly string[] = []): Promise<string[]> {
  const written = [
    loc.projectsDir,
    loc.transcriptsDir,
    loc.auditLog,
    loc.legacy.transcriptsDir,
    loc.legacy.auditLog,
    ...extra.map((p) => path.resolve(p)),
  ];
  const out = new Set<string>();
  for (const p of written) {
    out.add(p);
    const resolved = await resolvePath(p, '/').catch(() => undefined);
    if (resolved) out.add(resolved.real);
  }
  return [...out];
}
