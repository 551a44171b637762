// Message endpoints in the shape Comlink expects, over Node's MessagePort or a child process's IPC
// channel. Both the host and the worker side use these; they do no I/O of their own.

/** A Comlink-style endpoint. */
export interface Endpoint {
  postMessage(message: unknown, transfer?: unknown[]): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  start?: () => void;
}

/** Anything with Node's emitter-style message API (MessagePort, ChildProcess, process). */
export interface NodeMessageSource {
  on(event: 'message', listener: (data: unknown) => void): unknown;
  off(event: 'message', listener: (data: unknown) => void): unknown;
}

/** Adapts a Node MessagePort to an Endpoint (Node delivers data, Comlink wants `{ data }`). */
export function portEndpoint(port: NodeMessageSource & { postMessage(message: unknown): void }): Endpoint {
  return channelEndpoint(port, (message) => port.postMessage(message));
}

/**
 * An Endpoint over an emitter plus a send function, optionally multiplexed: with `channel`, only
 * messages tagged `{ ch: channel }` are delivered and every sent message is tagged.
 */
export function channelEndpoint(
  source: NodeMessageSource,
  send: (message: unknown) => void,
  channel?: string,
): Endpoint {
  const listeners = new Map<(event: { data: unknown }) => void, (data: unknown) => void>();
  return {
    postMessage: (message) => send(channel === undefined ? message : { ch: channel, m: message }),
    addEventListener: (_type, listener) => {
      const wrapped = (data: unknown) => {
        if (channel === undefined) return listener({ data });
        const tagged = data as { ch?: unknown; m?: unknown } | null;
        if (tagged && typeof tagged === 'object' && tagged.ch === channel) listener({ data: tagged.m });
      };
      listeners.set(listener, wrapped);
      source.on('message', wrapped);
    },
    removeEventListener: (_type, listener) => {
      const wrapped = listeners.get(listener);
      if (wrapped) source.off('message', wrapped);
      listeners.delete(listener);
    },
  };
}
