// Faults for the kernel's own tests and benchmarks, run inside a worker built for tests only
// (fault-worker.ts): a run whose first message is `fault:<kind>` fails in that way instead of
// running. Each fault imitates a real failure shape. No shipped bundle contains this code.

/** The failure shapes a test can ask for. */
export const FAULTS = [
  'throw',
  'exit',
  'oom-small',
  'oom-array',
  'oom-map',
  'spin',
  'hang',
  'abort',
] as const;

/** One failure shape. */
export type Fault = (typeof FAULTS)[number];

/** The fault a run's first message asks for (`fault:<kind>`), if any. */
export function faultOf(prompt: string): Fault | undefined {
  const match = /^fault:([a-z-]+)\b/.exec(prompt);
  return FAULTS.find((f) => f === match?.[1]);
}

/** Runs the requested fault. Only `hang` returns (never settling); the rest throw, exit or spin. */
export async function injectFault(fault: Fault): Promise<never> {
  switch (fault) {
    case 'throw':
      throw new Error('injected fault: the worker threw');
    case 'exit':
      process.exit(3);
      break;
    case 'spin':
      for (;;) {
        // A CPU-bound runaway: only terminating the thread stops it.
      }
    case 'hang':
      return new Promise<never>(() => undefined);
    case 'abort':
      // A native crash (V8's fatal out-of-memory in a thread is one) ends the process with SIGABRT:
      // in thread mode the whole host, in process mode only this run's process.
      process.kill(process.pid, 'SIGABRT');
      return new Promise<never>(() => undefined);
    case 'oom-small': {
      // Many small allocations: V8 reaches the heap limit gracefully.
      const keep: object[] = [];
      for (;;) keep.push({ a: Math.random(), b: 'x'.repeat(64) + String(keep.length) });
    }
    case 'oom-array': {
      // One growing array: a shape that can abort the whole process in thread mode.
      const big: number[] = [];
      for (let i = 0; ; i++) big.push(i + 0.5);
    }
    case 'oom-map': {
      const map = new Map<number, number>();
      for (let i = 0; ; i++) map.set(i, i + 0.5);
    }
  }
  throw new Error(`unknown fault ${String(fault)}`);
}
