// CPU time for bounds on pure computation (a pathological pattern, a YAML bomb, the policy's own
// work): wall time also counts every other process on a loaded machine, CPU time only this one's.
// Each test file runs in a process of its own (vitest's forks pool), so this is the test's.

/** CPU milliseconds this process has used so far (user and system). */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
