// Finds, once per process, which sandbox works here: bubblewrap (from a fixed system location, or
// the absolute path the user's config names), else the unshare backend (namespaces made with
// unshare(2) by a perl launcher), else none. "Works" means a
// trial command ran inside the very sandbox commands get, not that a binary exists: bwrap is often
// installed and refused (Docker's seccomp profile, Ubuntu's AppArmor rule).
import { findSystemBinary, systemBinary, trustExecutable } from './binaries.js';
import { bwrapFeatures } from './bwrap.js';
import { hostFacts, sandboxFix } from './diagnose.js';
import { pidsCgroupDir } from './process-cap.js';
import { runQuiet, trial, unshareTools } from './trial.js';
import type { BackendAttempt, ProcessCap, SandboxBackend, SandboxStatus } from './types.js';

/** What to probe with. */
export interface ProbeOptions {
  /** `sandbox.bwrapPath` from the user's config: used instead of the system locations. */
  bwrapPath?: string;
  /** Probe again instead of using this process's cached result. */
  refresh?: boolean;
}

/**
 * The process caps to try for a backend, best first. As root: a pids cgroup, then (unshare only:
 * bwrap has no setup step to set it in) the PID namespace's own pid_max. Both hold a fork bomb at
 * the same count, and a command costs the same under either (unshare as root, 80 interleaved
 * rounds: 15.0–15.6 ms with the cgroup, 15.2–15.4 with pid_max), so the one both backends share
 * comes first. Under either, a bash whose own fork fails at the cap retries for 15 s and then ends
 * with 254 and nothing printed: that is the cap holding, not a failure of it.
 */
async function processCaps(backend: SandboxBackend, uid: number): Promise<ProcessCap[]> {
  if (uid !== 0)
    return [
      {
        kind: 'rlimit',
        detail: "RLIMIT_NPROC inside the sandbox's user namespace (counts only its processes)",
      },
    ];
  const caps: ProcessCap[] = [];
  const dir = await cgroupDir();
  if (dir !== undefined)
    caps.push({ kind: 'cgroup', detail: `a pids cgroup per command under ${dir}`, cgroupDir: dir });
  if (backend === 'unshare')
    caps.push({ kind: 'pid-max', detail: "the PID namespace's pid_max (Linux 6.14+)" });
  caps.push({
    kind: 'none',
    detail:
      'running as root, RLIMIT_NPROC does not apply, no pids cgroup can be made here, and this kernel has no per-namespace pid_max',
  });
  return caps;
}

/** Runs the trial under each cap in turn; the status of the first that works, or the last failure. */
async function firstWorking(status: SandboxStatus, caps: readonly ProcessCap[]): Promise<string | undefined> {
  let failure: string | undefined = 'no process cap to try';
  for (const cap of caps) {
    status.processCap = cap;
    failure = await trial(status);
    if (failure === undefined) return undefined;
  }
  return failure;
}

let cgroupDirPromise: Promise<string | undefined> | undefined;
function cgroupDir(): Promise<string | undefined> {
  cgroupDirPromise ??= pidsCgroupDir();
  return cgroupDirPromise;
}

/** Probes without the cache. */
async function probe(options: ProbeOptions): Promise<SandboxStatus> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const [bashFound, sh, setpriv] = await Promise.all([
    findSystemBinary('bash'),
    systemBinary('sh'),
    systemBinary('setpriv'),
  ]);
  const bash = 'path' in bashFound ? bashFound.path : undefined;
  const common = {
    uid,
    gid,
    arch: process.arch,
    ...(bash ? { bash } : {}),
    ...(sh ? { sh } : {}),
    ...(setpriv ? { setpriv } : {}),
  };
  const attempts: BackendAttempt[] = [];
  const none: SandboxStatus = {
    available: false,
    mode: 'none',
    detail: '',
    attempts,
    processCap: { kind: 'none', detail: 'no sandbox' },
    ...common,
  };
  if ('reason' in bashFound) {
    return { ...none, detail: `commands run with bash, and ${bashFound.reason}`, fix: 'Install bash.' };
  }
  const bwrap = await probeBwrap(options, common, attempts);
  if (bwrap !== undefined) return bwrap;
  const unshare = await probeUnshare(common, attempts);
  if (unshare !== undefined) return unshare;
  const why = attempts.map((a) => `${a.backend}: ${a.detail}`).join('; ');
  return {
    ...none,
    detail: `no sandbox works here (${why})`,
    fix: sandboxFix(await hostFacts(uid), attempts),
  };
}

type Common = Pick<SandboxStatus, 'uid' | 'gid' | 'arch' | 'bash' | 'sh' | 'setpriv'>;

async function probeBwrap(
  options: ProbeOptions,
  common: Common,
  attempts: BackendAttempt[],
): Promise<SandboxStatus | undefined> {
  let bin: string | undefined;
  if (options.bwrapPath !== undefined) {
    const verdict = await trustExecutable(options.bwrapPath);
    if (!verdict.ok) {
      attempts.push({
        backend: 'bwrap',
        ok: false,
        binary: options.bwrapPath,
        detail: `sandbox.bwrapPath in ~/.cadre/config.json: ${verdict.reason}`,
      });
      return undefined;
    }
    bin = options.bwrapPath;
  } else bin = await systemBinary('bwrap');
  if (bin === undefined) {
    attempts.push({ backend: 'bwrap', ok: false, detail: 'bubblewrap (bwrap) is not installed' });
    return undefined;
  }
  const [version, help] = await Promise.all([runQuiet(bin, ['--version']), runQuiet(bin, ['--help'])]);
  if (!version.ok) {
    attempts.push({
      backend: 'bwrap',
      ok: false,
      binary: bin,
      detail: `${bin} --version failed: ${version.output}`,
    });
    return undefined;
  }
  const status: SandboxStatus = {
    available: true,
    mode: 'bwrap',
    detail: `${version.output} at ${bin}`,
    attempts,
    bwrapPath: bin,
    bwrapFeatures: bwrapFeatures(help.output),
    processCap: { kind: 'none', detail: 'not probed yet' },
    ...common,
  };
  const failure = await firstWorking(status, await processCaps('bwrap', common.uid));
  attempts.push({
    backend: 'bwrap',
    ok: failure === undefined,
    binary: bin,
    detail:
      failure === undefined
        ? status.detail
        : `${bin} is installed but cannot make a sandbox here: ${failure}`,
  });
  return failure === undefined ? status : undefined;
}

async function probeUnshare(common: Common, attempts: BackendAttempt[]): Promise<SandboxStatus | undefined> {
  const tools = await unshareTools();
  if (typeof tools === 'string') {
    attempts.push({ backend: 'unshare', ok: false, detail: tools });
    return undefined;
  }
  const version = await runQuiet(tools.perl, ['-e', 'print "perl $^V"']);
  const status: SandboxStatus = {
    available: true,
    mode: 'unshare',
    detail: `unshare(2) and mount(2) from ${version.output} at ${tools.perl}`,
    attempts,
    unshare: tools,
    processCap: { kind: 'none', detail: 'not probed yet' },
    ...common,
  };
  const failure = await firstWorking(status, await processCaps('unshare', common.uid));
  attempts.push({
    backend: 'unshare',
    ok: failure === undefined,
    binary: tools.perl,
    detail: failure === undefined ? status.detail : `unshare cannot make a sandbox here: ${failure}`,
  });
  return failure === undefined ? status : undefined;
}

const cache = new Map<string, Promise<SandboxStatus>>();

/** Whether and how commands can be sandboxed here: probed once per process (per bwrap path). */
export function probeSandbox(options: ProbeOptions = {}): Promise<SandboxStatus> {
  const key = options.bwrapPath ?? '';
  let hit = cache.get(key);
  if (hit === undefined || options.refresh) {
    hit = probe(options);
    cache.set(key, hit);
  }
  return hit;
}
