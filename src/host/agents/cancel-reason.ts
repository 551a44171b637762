// How a run is told it is cancelled: the abort reason its cancel signal carries, which the run
// controller reads back to say who cancelled it (the caller, or its parent ending).
import { CadreError } from '../../shared/errors.js';

/** The abort reason of a cancelled run: a `cancelled` error that says who cancelled it. */
export function cancelReason(endReason: 'user_cancelled' | 'parent_cancelled'): CadreError {
  return new CadreError(
    'cancelled',
    endReason === 'parent_cancelled'
      ? 'cancelled because its parent ended'
      : 'cancelled by the caller (stop() or Ctrl-C)',
    { endReason },
  );
}
