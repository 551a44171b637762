// The command sandbox turned off, for tests of capability handlers that run no command: an
// EffectContext needs a gate, and these tests need none of its probing or warnings.
import { SandboxGate } from '../../src/host/capabilities/sandbox/gate.js';

/** A sandbox gate with `sandbox: "off"` and nothing else configured. */
export function sandboxOff(): SandboxGate {
  return new SandboxGate(
    { mode: 'off', allowRead: [], denyRead: [], protect: [], warnings: [] },
    () => undefined,
  );
}
