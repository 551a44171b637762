// Paths that hold secrets (denied to reads unless a rule names them) and paths that steer cadre,
// git or the shell (writes always ask unless a rule names them). Also decides whether a rule
// "names" such a path, as opposed to covering it by a wide wildcard like `src/**`.
import { matchPathSpec, relativeToRoot, type PathContext } from './path-match.js';

/** Why a path is sensitive, and which of its segments make it so. */
export interface SensitiveHit {
  label: string;
  /** Indexes (in the `/`-split absolute path) of the segments that carry the sensitivity. */
  keys: number[];
}

const ENV_TEMPLATES = new Set([
  'example',
  'sample',
  'template',
  'dist',
  'defaults',
  'schema',
  'test.example',
]);

/** File names (last segment) that hold secrets. Matching is case-insensitive. */
const SENSITIVE_FILES: ReadonlyArray<{ test: (name: string) => boolean; label: string }> = [
  {
    label: 'environment secrets',
    test: (n) => n === '.env' || (n.startsWith('.env.') && !ENV_TEMPLATES.has(n.slice(5))),
  },
  {
    label: 'a private key or certificate store',
    test: (n) => /\.(pem|key|p12|pfx|jks|keystore|ppk)$/.test(n),
  },
  { label: 'an SSH private key', test: (n) => /^id_(rsa|dsa|ecdsa|ed25519)/.test(n) && !n.endsWith('.pub') },
  {
    label: 'a credentials file',
    test: (n) =>
      [
        '.npmrc',
        '.netrc',
        '_netrc',
        '.pypirc',
        '.pgpass',
        '.git-credentials',
        '.htpasswd',
        'credentials.json',
        '.dockercfg',
      ].includes(n),
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
  '.env, .env.* (not .env.example/.sample/.template/.dist/.defaults/.schema)',
  '*.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, *.ppk',
  'id_rsa*, id_dsa*, id_ecdsa*, id_ed25519* (not *.pub)',
  '.npmrc, .netrc, _netrc, .pypirc, .pgpass, .git-credentials, .htpasswd, credentials.json, .dockercfg',
  '.ssh/**, .gnupg/**',
  '.aws/credentials, .docker/config.json, .kube/config, .config/gcloud/**, .config/gh/**',
];

/**
 * A path that can be sensitive at all: a segment starting with a dot (every sensitive directory,
 * .env and the dot-credential files), or a name that is a key, an SSH key, _netrc or
 * credentials.json. Most paths fail it, and are cleared without splitting them into segments.
 */
const MAYBE_SENSITIVE =
  /(^|\/)\.|\.(pem|key|p12|pfx|jks|keystore|ppk)$|(^|\/)id_(rsa|dsa|ecdsa|ed25519)[^/]*$|(^|\/)(_netrc|credentials\.json)$/i;

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

/** Directories inside a root whose files steer git, cadre or the agent tooling. */
const PROTECTED_DIRS = new Set(['.git', '.cadre', '.claude']);

/** Why writing the absolute path `p` always asks (secrets, or configuration that grants power), or undefined. */
export function findProtected(p: string, ctx: PathContext): SensitiveHit | undefined {
  const sensitive = findSensitive(p);
  if (sensitive) return sensitive;
  const rel = relativeToRoot(p, ctx);
  if (rel === undefined || rel === '') return undefined;
  const relSegs = rel.split('/');
  const offset = p.split('/').length - relSegs.length;
  const i = relSegs.findIndex((s) => PROTECTED_DIRS.has(s.toLowerCase()));
  if (i === -1) return undefined;
  const dir = relSegs[i] ?? '';
  const label =
    dir === '.git' ? 'git internals (hooks run code)' : `${dir} configuration (it can grant permissions)`;
  return { label, keys: [offset + i] };
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
