// What a pool thread receives in thread mode, and how a thread started ahead of need waits for its
// run: it loads the worker, says so on a port of its own, and waits there ("parks") for the one run
// it will be given or for its release. The host decides which run a parked thread gets; the
// thread obeys, as with any task. `Port` is Node's MessagePort on both sides (shared code names
// no node: module).
import type { WorkerRunSpec } from './run-spec.js';

/** One run in thread mode: its spec and the worker's ends of its three channels. */
export interface ThreadTask<Port> {
  spec: WorkerRunSpec;
  caps: Port;
  control: Port;
  model: Port;
}

/** A thread started ahead of need: it parks on `park` until the host gives it a run or lets it go. */
export interface ParkTask<Port> {
  park: Port;
}

/** Host -> parked thread: run this (its ports travel with the message), or end the wait. */
export type ParkOrder<Port> = { type: 'run'; task: ThreadTask<Port> } | { type: 'release' };

/** Parked thread -> host, once its code is loaded and it waits for an order. */
export const PARKED_NOTE = 'parked';
