// What a project's `.cadre/config.json` may not do. A cloned repository wrote that file, so it is
// as untrusted as a model's output: it may tighten what agents may do, never loosen it past what
// the person set up. The sandbox block has its own rules (merge.ts, mergeSandbox); here are the
// rest, each ignored with a warning that says where the person can set it instead:
// - `permissions.defaultMode: "bypassPermissions"`: no prompts would be a repository's choice;
// - `permissions.additionalDirectories` outside the project: the file tools and commands would
//   read there;
// - a provider's `apiKeyEnv` / `authTokenEnv`: the person's key would go to a server the
//   repository names;
// - an allow rule naming what the path guards keep (a secret such as `.env`, a protected path such
//   as `.git/hooks`, `package.json`): only the person may open those to agents;
// - `transcriptsDir` or `dataDir` outside the project, or a `dataDir` whose records would lead out
//   through a link the repository ships below it: cadre itself, outside any sandbox, would write
//   records (model text included) wherever the repository says, and `cadre transcripts prune`
//   would delete `*.jsonl` files there;
// - `webFetch.allowPrivate`: WebFetch would reach loopback services, the cloud metadata address and
//   the intranet from the person's machine, which the address guard keeps out in every mode.
import { resolvePathSync } from '../capabilities/fs/resolve-sync.js';
import { isUnder } from '../capabilities/policy/path-match.js';
import { PROTECTED_PATHS, protectedEntry } from '../capabilities/policy/protected-paths.js';
import { findSensitive } from '../capabilities/policy/sensitive.js';
import { recordsLocation } from '../records/location.js';
import type { ConfigFile } from './schema.js';

const WHERE = '.cadre/config.json of the project';

/**
 * Whether `dir` is in `projectDir` where it really leads: cadre writes its records there itself, so
 * a symbolic link the repository ships (`logs -> ~/data`) must not carry them out. A path that
 * cannot be resolved counts as outside.
 */
function leadsUnder(dir: string, projectDir: string): boolean {
  try {
    return isUnder(resolvePathSync(dir, '/').real, resolvePathSync(projectDir, '/').real);
  } catch {
    return false;
  }
}

/**
 * Whether the records a project's `transcriptsDir` or `dataDir` (resolved: `dir`) places stay in the
 * project. For `dataDir`, every place cadre writes below it counts too: a shipped `projects` link,
 * or an `audit.jsonl` link in the project's own records directory (its name is a hash of the
 * project's path, which a repository cloned to a known path such as a CI checkout can foresee),
 * would carry cadre's writes out as surely as the directory itself.
 */
function recordsStayUnder(key: 'transcriptsDir' | 'dataDir', dir: string, projectDir: string): boolean {
  if (key === 'transcriptsDir') return leadsUnder(dir, projectDir);
  const loc = recordsLocation({ cwd: projectDir, home: projectDir, config: { dataDir: dir } });
  return [loc.dataDir, loc.projectsDir, loc.dir, loc.transcriptsDir, loc.auditLog, loc.fanoutFile].every(
    (p) => leadsUnder(p, projectDir),
  );
}

/** Rule tools whose specifier is a path, which a rule naming a guarded path opens. */
const PATH_RULE = /^(Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS)\(([\s\S]*)\)$/;

/** A specifier's forms with each `{a,b}` group expanded (capped: past it, every group is kept whole). */
function braceForms(spec: string): string[] {
  let forms = [spec];
  for (let i = 0; i < 6 && forms.some((f) => /\{[^{}]*\}/.test(f)); i++)
    forms = forms.flatMap((f) => {
      const m = /\{([^{}]*)\}/.exec(f);
      return m
        ? m[1]!.split(',').map((alt) => f.slice(0, m.index) + alt + f.slice(m.index + m[0].length))
        : [f];
    });
  return forms;
}

/**
 * Whether a path rule's specifier names what the path guards keep: a secret, a protected path, git's
 * internals or a package.json, with its wildcards made neutral (`Edit(.vscode/**)` names `.vscode`;
 * `Edit(**)` names nothing), as the guards judge an allow rule.
 */
function namesGuarded(spec: string): boolean {
  return braceForms(spec).some((form) => {
    const p = form.replace(/\[[^\]]*\]|[*?]+/g, 'x');
    const rel = p.replace(/^\/+/, '').replace(/^~\//, '');
    const segs = rel.toLowerCase().split('/');
    return (
      findSensitive(p) !== undefined ||
      protectedEntry(rel, PROTECTED_PATHS) !== undefined ||
      segs.includes('.git') ||
      segs.includes('package.json')
    );
  });
}

/** The project file with what it may not set taken out, and one warning for each thing taken. */
export function limitProjectConfig(
  project: ConfigFile,
  resolve: (p: string) => string,
  projectDir: string,
): { project: ConfigFile; warnings: string[] } {
  const warnings: string[] = [];
  const out: ConfigFile = { ...project };
  if (project.permissions !== undefined) {
    const permissions = { ...project.permissions };
    if (permissions.defaultMode === 'bypassPermissions') {
      delete permissions.defaultMode;
      warnings.push(
        `permissions.defaultMode "bypassPermissions" in the ${WHERE} is ignored: a project cannot turn prompts off; pass --permission-mode bypassPermissions, or set it in ~/.cadre/config.json`,
      );
    }
    const opening = (permissions.allow ?? []).filter((rule) => {
      const spec = PATH_RULE.exec(rule.trim())?.[2]?.trim();
      return spec !== undefined && namesGuarded(spec);
    });
    if (opening.length > 0) {
      permissions.allow = (permissions.allow ?? []).filter((entry) => !opening.includes(entry));
      for (const entry of opening)
        warnings.push(
          `permissions.allow "${entry}" in the ${WHERE} is ignored: a project cannot open a secret, a protected path or package.json to agents; add the rule to ~/.cadre/config.json`,
        );
    }
    const dirs = permissions.additionalDirectories ?? [];
    const outside = dirs.filter((d) => !isUnder(resolve(d), projectDir));
    if (outside.length > 0) {
      permissions.additionalDirectories = dirs.filter((d) => isUnder(resolve(d), projectDir));
      for (const d of outside)
        warnings.push(
          `permissions.additionalDirectories "${resolve(d)}" in the ${WHERE} is ignored: a project can add directories outside itself only through ~/.cadre/config.json`,
        );
    }
    out.permissions = permissions;
  }
  for (const key of ['transcriptsDir', 'dataDir'] as const) {
    const dir = project[key];
    if (dir !== undefined && !recordsStayUnder(key, resolve(dir), projectDir)) {
      delete out[key];
      warnings.push(
        `${key} "${resolve(dir)}" in the ${WHERE} is ignored: a project can keep cadre's records outside itself only through ~/.cadre/config.json`,
      );
    }
  }
  const allowPrivate = project.webFetch?.allowPrivate ?? [];
  if (allowPrivate.length > 0 && project.webFetch !== undefined) {
    const { allowPrivate: _taken, ...webFetch } = project.webFetch;
    out.webFetch = webFetch;
    for (const host of allowPrivate)
      warnings.push(
        `webFetch.allowPrivate "${host}" in the ${WHERE} is ignored: a project cannot open private, loopback or link-local addresses to WebFetch; add it to ~/.cadre/config.json`,
      );
  }
  if (project.providers !== undefined) {
    const providers: NonNullable<ConfigFile['providers']> = {};
    for (const [name, provider] of Object.entries(project.providers)) {
      const { apiKeyEnv, authTokenEnv, ...rest } = provider;
      for (const [key, value] of [
        ['apiKeyEnv', apiKeyEnv],
        ['authTokenEnv', authTokenEnv],
      ] as const)
        if (value !== undefined)
          warnings.push(
            `providers.${name}.${key} in the ${WHERE} is ignored: a project cannot send your ${value} to a server it names; define provider "${name}" in ~/.cadre/config.json`,
          );
      providers[name] = rest;
    }
    out.providers = providers;
  }
  return { project: out, warnings };
}
