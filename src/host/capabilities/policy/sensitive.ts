// Paths that hold secrets (denied to reads unless a rule names them) and paths that steer cadre,
// git or the shell (writes always ask unless a rule names them). Also decides whether a rule
// "names" such a path, as opposed to covering it by a wide wildcard like `src/**`.
import { matchPathSpec, relativeToRoot, type PathContext } from './path-match.js';
import { PROTECTED_PATHS } from './protected-paths.js';

/** Why a path is sensitive, and which of its segments make it so. */
export interface SensitiveHit {
  label: string;
  /** Indexes (in the `/`-split absolute path) of the segments that carry the sensitivity. */
  keys: number[];
}

/** Suffixes that make a `.env` name a template (`.env.example`, `prod.env.sample`), not secrets. */
const ENV_TEMPLATES = new Set(['example', 'sample', 'template', 'dist', 'defaults', 'schema', 'tmpl', 'tpl']);

/**
 * Source and documentation extensions: `credentials.ts` and `id_generator.py` are code about
 * credentials and ids, not credentials. Data formats (json, yaml, ...) are not in the list.
 */
const SOURCE_EXTENSIONS = new Set(
  'ts tsx mts cts js jsx mjs cjs py rb go rs java kt kts scala c h cc cpp hpp cs php swift m md'.split(' '),
);

/** `.env` (or `.envrc`) anywhere in a name, not followed by a letter or digit: `.env~`, `prod.env`, `.env-prod`. */
const ENV_NAME = /\.env(rc)?(?![a-z0-9])/;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1);
}

/**
 * A name with `.env` in it that is not a template (`.env.example`, `.env-sample`, `prod.env.dist`)
 * nor source code (`app.env.ts` reads the environment, it does not hold it).
 */
function isEnvName(n: string): boolean {
  const match = ENV_NAME.exec(n);
  if (!match || SOURCE_EXTENSIONS.has(extensionOf(n))) return false;
  const tokens = n
    .slice(match.index + match[0].length)
    .split(/[.\-_~]+/)
    .filter(Boolean);
  const last = tokens[tokens.length - 1];
  return last === undefined || !ENV_TEMPLATES.has(last);
}

const CREDENTIAL_FILES = new Set([
  '.npmrc',
  '.netrc',
  '_netrc',
  '.pypirc',
  '.pgpass',
  '.git-credentials',
  '.htpasswd',
  '.dockercfg',
]);

/** File names (last segment) that hold secrets. Matching is case-insensitive. */
const SENSITIVE_FILES: ReadonlyArray<{ test: (name: string) => boolean; label: string }> = [
  { label: 'environment secrets', test: isEnvName },
  {
    label: 'a private key or certificate store',
    test: (n) => /\.(pem|key|p12|pfx|jks|keystore|ppk)$/.test(n) || n.endsWith('_key'),
  },
  {
    label: 'an SSH private key',
    test: (n) => n.startsWith('id_') && !n.endsWith('.pub') && !SOURCE_EXTENSIONS.has(extensionOf(n)),
  },
  {
    label: 'a credentials file',
    test: (n) =>
      CREDENTIAL_FILES.has(n) || (n.startsWith('credentials') && !SOURCE_EXTENSIONS.has(extensionOf(n))),
  },
];

/** Directories whose whole content is secret. */
const SENSITIVE_DIRS: ReadonlyMap<string, string> = new Map([
  ['.ssh', 'the SSH directory'],
  ['.gnupg', 'the GnuPG keyring'],
]);

/** Two-segment locations: a directory and a file in it. */
const SENSITIVE_PAIRS: ReadonlyArray<{ dir: string; file: string; label: string }> = [
  { dir: '.aws', file: 'credentials', label: 'AWS credentials' },
  { dir: '.docker', file: 'config.json', label: 'Docker registry credentials' },
  { dir: '.kube', file: 'config', label: 'Kubernetes credentials' },
  { dir: '.config', file: 'gcloud', label: 'Google Cloud credentials' },
  { dir: '.config', file: 'gh', label: 'GitHub CLI credentials' },
];

/** The sensitive-path list in words, for documentation and `cadre` help. */
export const SENSITIVE_PATTERNS: readonly string[] = [
  '.env with any prefix or suffix (.env, .env.local, .env~, .env-production, prod.env, *.env), .envrc (not templates: .env.example/.sample/.template/.dist/.defaults/.schema; not source code such as app.env.ts)',
  '*.pem, *.key, *_key, *.p12, *.pfx, *.jks, *.keystore, *.ppk',
  'id_* (not *.pub, not source code such as id_gen.ts)',
  'credentials* (not source code such as credentials.ts), .npmrc, .netrc, _netrc, .pypirc, .pgpass, .git-credentials, .htpasswd, .dockercfg',
  '.ssh/**, .gnupg/**',
  '.aws/credentials, .docker/config.json, .kube/config, .config/gcloud/**, .config/gh/**',
  'any file that begins with a PEM private key (-----BEGIN ... PRIVATE KEY-----), whatever its name',
];

/**
 * A path that can be sensitive at all: a segment starting with a dot (every sensitive directory,
 * the dot-credential files), `.env` anywhere, a key extension, or a name starting `id_` or
 * `credentials` or ending `_key`. Most paths fail it, and are cleared without splitting them.
 */
const MAYBE_SENSITIVE =
  /(^|\/)\.|\.env|\.(pem|key|p12|pfx|jks|keystore|ppk)$|_key$|(^|\/)(id_|credentials)[^/]*$|(^|\/)_netrc$/i;

/** Why the absolute path `p` holds secrets (every sensitive segment is a key), or undefined. */
export function findSensitive(p: string): SensitiveHit | undefined {
  // Tested lowercased, as the scan compares: toLowerCase maps more than ASCII (the Kelvin sign
  // becomes "k"), which a case-insensitive regex alone would not.
  return MAYBE_SENSITIVE.test(p.toLowerCase()) ? scanSensitive(p) : undefined;
}

/** The full segment-by-segment scan behind `findSensitive` (exported for the test of its pre-check). */
export function scanSensitive(p: string): SensitiveHit | undefined {
  const segs = p.split('/');
  const last = segs.length - 1;
  let label: string | undefined;
  const keys: number[] = [];
  for (let i = 0; i < segs.length; i++) {
    const seg = (segs[i] ?? '').toLowerCase();
    const dirLabel = SENSITIVE_DIRS.get(seg);
    const pair = SENSITIVE_PAIRS.find((x) => x.dir === seg && (segs[i + 1] ?? '').toLowerCase() === x.file);
    if (dirLabel !== undefined) keys.push(i);
    if (pair) keys.push(i, i + 1);
    label ??= dirLabel ?? pair?.label;
  }
  const name = (segs[last] ?? '').toLowerCase();
  const file = name === '' ? undefined : SENSITIVE_FILES.find((rule) => rule.test(name));
  if (file) {
    keys.push(last);
    label = file.label;
  }
  return label === undefined ? undefined : { label, keys: [...new Set(keys)] };
}

/** The protected list split into lowercased segments, kept per list (one list per runtime, in practice). */
const splitCache = new Map<string, string[][]>();

function protectedSegments(list: readonly string[]): string[][] {
  const key = list.join('\0');
  let segs = splitCache.get(key);
  if (!segs) {
    // The file tools protect the whole of `.git/`: nothing a model does needs to write git's internals.
    segs = ['.git', ...list].map((entry) => entry.toLowerCase().split('/'));
    if (splitCache.size > 64) splitCache.clear();
    splitCache.set(key, segs);
  }
  return segs;
}

function protectedLabel(entry: string): string {
  if (entry.startsWith('.git/') || entry === '.git') return 'git internals (hooks and config run code)';
  if (entry === '.cadre' || entry === '.claude' || entry === '.mcp.json')
    return `${entry}, configuration that can grant permissions or start servers`;
  return `${entry}, a protected path (what is written there can run code later)`;
}

/**
 * Why writing the absolute path `p` always asks (secrets, or a protected path: the one list of
 * protected-paths.ts, which `ctx.protect` carries with the config's additions), or undefined. An
 * entry matches at any depth of the project, case-insensitively: `.husky` protects `pkg/.husky` too.
 */
export function findProtected(
  p: string,
  ctx: PathContext & { protect?: readonly string[] },
): SensitiveHit | undefined {
  const sensitive = findSensitive(p);
  if (sensitive) return sensitive;
  const rel = relativeToRoot(p, ctx);
  if (rel === undefined || rel === '') return undefined;
  const relSegs = rel.toLowerCase().split('/');
  const offset = p.split('/').length - relSegs.length;
  for (const entry of protectedSegments(ctx.protect ?? PROTECTED_PATHS)) {
    for (let i = 0; i + entry.length <= relSegs.length; i++) {
      if (entry.every((seg, k) => relSegs[i + k] === seg)) {
        return { label: protectedLabel(entry.join('/')), keys: entry.map((_, k) => offset + i + k) };
      }
    }
  }
  return undefined;
}

const PROBE = '.cadre-probe';

/**
 * True when `spec` matches `p` because it names the sensitive part rather than by a wide wildcard:
 * swapping one sensitive segment for a neutral name makes it stop matching.
 */
export function specNames(spec: string, p: string, hit: SensitiveHit, ctx: PathContext): boolean {
  if (!matchPathSpec(spec, p, ctx)) return false;
  const segs = p.split('/');
  return hit.keys.some((k) => {
    const probe = [...segs];
    probe[k] = PROBE;
    return !matchPathSpec(spec, probe.join('/'), ctx);
  });
}
