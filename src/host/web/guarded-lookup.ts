// The name resolution WebFetch's connections use: every address a host name resolves to is checked
// (address-guard.ts) before the socket connects, and the socket connects to those checked
// addresses only. Node hands the lookup's answer straight to connect(), so no second resolution
// happens between the check and the connection (a DNS rebinding answer cannot slip in).
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { CadreError } from '../../shared/errors.js';
import { addressRefusal, type PrivateAllowance } from './address-guard.js';

/**
 * A `lookup` for http(s).request: resolves `hostname`, refuses when any address is private (unless
 * trusted), and reports the address connected to through `onAddress`.
 */
export function guardedLookup(
  allowance: PrivateAllowance,
  onAddress: (address: string) => void,
): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      if (addresses.length === 0) {
        callback(new CadreError('not_found', `${hostname} has no address`), '', 0);
        return;
      }
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, hostname, allowance);
        if (refusal !== undefined) {
          callback(new CadreError('permission_denied', refusal), '', 0);
          return;
        }
      }
      const first = addresses[0] as dns.LookupAddress;
      onAddress(first.address);
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
