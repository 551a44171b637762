// A parked thread's wait: it says it is ready, then takes the first well-formed order the host
// sends on its park port (a run, or its release). Anything else on the port is ignored.
import type { Endpoint } from '../shared/endpoint.js';
import { PARKED_NOTE, type ParkOrder } from '../shared/park.js';

/** Tells the host this thread is loaded, and resolves with the host's order. */
export function awaitOrder<Port>(park: Endpoint): Promise<ParkOrder<Port>> {
  return new Promise((resolve) => {
    const onMessage = (event: { data: unknown }) => {
      const order = event.data as ParkOrder<Port> | null;
      if (order?.type !== 'run' && order?.type !== 'release') return;
      park.removeEventListener('message', onMessage);
      resolve(order);
    };
    park.addEventListener('message', onMessage);
    park.start?.();
    park.postMessage(PARKED_NOTE);
  });
}
