// Ctrl-C, SIGTERM and SIGHUP all ask a command to stop: the first one cancels what runs (each run
// is recorded as cancelled, transcripts and results are closed) and the command exits with
// 128 + the signal's number (130, 143, 129), as a shell expects; a second one exits at once.
import { constants } from 'node:os';

/** The signals that stop a command. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** One of them. */
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The exit status for a command stopped by `signal`. */
function signalExitCode(signal: StopSignal): number {
  return 128 + (constants.signals[signal] ?? 2);
}

/** Listening for stop signals; `dispose` stops listening. */
export interface StopListener {
  /** The first stop signal received, if any. */
  readonly received: StopSignal | undefined;
  /** The exit status it calls for, if any. */
  readonly exitCode: number | undefined;
  dispose(): void;
}

/**
 * Calls `onStop` on the first stop signal; exits the process at once on the second (the normal
 * exit hooks still run: a batch's lock file is given back).
 */
export function onStopSignals(onStop: (signal: StopSignal) => void): StopListener {
  let received: StopSignal | undefined;
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => {
      if (received !== undefined) process.exit(signalExitCode(received));
      received = signal;
      onStop(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    get received() {
      return received;
    },
    get exitCode() {
      return received === undefined ? undefined : signalExitCode(received);
    },
    dispose() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
