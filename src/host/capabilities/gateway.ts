// The gateway: one run's capability port. Comlink exposes only the granted capabilities, behind a
// guard that admits nothing but APPLY of an allowlisted name (and RELEASE). Comlink's expose() is
// not a boundary on its own: GET/SET/CONSTRUCT/ENDPOINT and `fn.constructor` paths would reach host
// objects, so every other message is answered with an error before Comlink sees it. The one
// message outside Comlink is the worker's batch of events (EVENTS_NOTE), an events.emit call that
// expects no answer; a batch can also ride on a call (EVENTS_FIELD), delivered before the call.
import * as Comlink from 'comlink';
import {
  EVENTS_FIELD,
  EVENTS_NOTE,
  type CapabilityName,
  type Capabilities,
} from '../../shared/capabilities.js';
import { CadreError, fail, type Envelope } from '../../shared/errors.js';
import type { Endpoint } from '../../shared/endpoint.js';

/** Called for every capability call after it settles (for idle watchdogs and accounting). */
export type CallObserver = (name: CapabilityName, phase: 'start' | 'end') => void;

/** What `exposeGateway` returns: close it when the run ends. */
export interface Gateway {
  /** Stops answering and marks every later call as refused. */
  close(): void;
  /** Calls still running on the host. */
  pending(): number;
  /**
   * Handles messages taken from the port after the worker ended: events, in notes or riding on
   * calls, are delivered (they happened before the end); the calls are dropped, as no one is left
   * to answer.
   */
  takeLate(messages: readonly unknown[]): void;
}

/** Answers for messages the guard refuses: the wire shape Comlink's caller turns into a rejection. */
function refusal(id: unknown, message: string): Record<string, unknown> {
  return {
    id,
    type: 'HANDLER',
    name: 'throw',
    value: { isError: true, value: { name: 'CadreError', message } },
  };
}

/**
 * Exposes `handlers` restricted to `granted` on `endpoint`. Each handler's result is returned as
 * an Envelope; a thrown error becomes a failure envelope with its code.
 */
export function exposeGateway(
  endpoint: Endpoint,
  handlers: Partial<Capabilities>,
  granted: readonly CapabilityName[],
  observe?: CallObserver,
): Gateway {
  const allowed = new Set<string>(granted.filter((name) => typeof handlers[name] === 'function'));
  let closed = false;
  let inFlight = 0;
  const table: Record<string, (arg: unknown) => Promise<Envelope<unknown>>> = Object.create(null) as Record<
    string,
    (arg: unknown) => Promise<Envelope<unknown>>
  >;
  for (const name of allowed) {
    const handler = handlers[name as CapabilityName] as unknown as (
      arg: unknown,
    ) => Promise<Envelope<unknown>>;
    table[name] = async (arg: unknown) => {
      if (closed) return fail(new CadreError('cancelled', 'the run has ended; capability calls are refused'));
      inFlight++;
      observe?.(name as CapabilityName, 'start');
      try {
        return await handler(arg);
      } catch (error) {
        return fail(error);
      } finally {
        inFlight--;
        observe?.(name as CapabilityName, 'end');
      }
    };
  }
  Object.freeze(table);

  // A one-way call: the worker's events need no answer, and a reply per batch would cost the host a
  // message and the worker a wake-up. Granted like any call, counted, never answered.
  const note = (events: unknown) => {
    if (allowed.has('events.emit') && !closed) void table['events.emit']?.(events);
  };

  const listeners = new Map<(event: { data: unknown }) => void, (event: { data: unknown }) => void>();
  const guarded: Endpoint = {
    postMessage: (message, transfer) => {
      if (!closed) endpoint.postMessage(message, transfer);
    },
    addEventListener: (type, listener) => {
      const filter = (event: { data: unknown }) => {
        const data = event.data as Record<string, unknown> | null;
        if (!data || typeof data !== 'object') return;
        if (data.type === EVENTS_NOTE) return note(data.events);
        // Events that happened before this call, delivered before it (Comlink ignores the field).
        if (EVENTS_FIELD in data) note(data[EVENTS_FIELD]);
        const verdict = admit(data, allowed);
        if (verdict === true) listener(event);
        else endpoint.postMessage(refusal(data.id, verdict));
      };
      listeners.set(listener, filter);
      endpoint.addEventListener(type, filter);
    },
    removeEventListener: (type, listener) => {
      const filter = listeners.get(listener);
      if (filter) endpoint.removeEventListener(type, filter);
    },
  };
  if (endpoint.start) guarded.start = () => endpoint.start?.();
  Comlink.expose(table, guarded as unknown as Comlink.Endpoint);

  return {
    close() {
      closed = true;
      for (const filter of listeners.values()) endpoint.removeEventListener('message', filter);
      listeners.clear();
    },
    pending: () => inFlight,
    takeLate(messages) {
      for (const message of messages) {
        if (!message || typeof message !== 'object') continue;
        const data = message as Record<string, unknown>;
        if (data.type === EVENTS_NOTE) note(data.events);
        else if (EVENTS_FIELD in data) note(data[EVENTS_FIELD]);
      }
    },
  };
}

/** The guard: true to let Comlink handle the message, or the refusal text. */
function admit(data: Record<string, unknown>, allowed: ReadonlySet<string>): true | string {
  const { type, path, argumentList } = data;
  if (type === 'RELEASE') return true;
  if (type !== 'APPLY')
    return `capability port: ${String(type)} is not allowed; only calls of granted capabilities are`;
  if (!Array.isArray(path) || path.length !== 1 || typeof path[0] !== 'string') {
    return `capability port: only direct calls of a granted capability are allowed (path ${JSON.stringify(path)})`;
  }
  if (!allowed.has(path[0])) return `not_granted: capability "${path[0]}" is not granted to this agent`;
  if (!Array.isArray(argumentList) || argumentList.length > 1)
    return 'capability port: a call takes one argument';
  for (const arg of argumentList) {
    if (!arg || typeof arg !== 'object' || (arg as { type?: unknown }).type !== 'RAW') {
      return 'capability port: arguments must be plain data (no proxies or transferred handlers)';
    }
  }
  return true;
}
