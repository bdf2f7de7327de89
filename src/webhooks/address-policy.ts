import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { WebhookSettings } from '../platform/config.js';
import { AppError } from '../platform/errors.js';
import { type Subnet, subnetMatcher } from '../platform/subnets.js';

/**
 * Where webhooks may go (SSRF rules): `https` only, to public unicast addresses. `http` only to
 * loopback and only when `WEBHOOK_ALLOW_HTTP_LOOPBACK` says so (development); private,
 * loopback, link-local, multicast, reserved and unique-local addresses (IPv4 and IPv6, an
 * IPv4-mapped IPv6 address judged as its IPv4) only inside `WEBHOOK_ALLOWED_NETWORKS`.
 */
export type AddressPolicy = Pick<WebhookSettings, 'allowHttpLoopback' | 'allowedNetworks'>;

/** Why an address is refused, or undefined when it may be reached. */
export function refusalOf(
  address: string,
  policy: AddressPolicy,
  protocol: 'http:' | 'https:',
): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  if (allowedBy(policy.allowedNetworks)(address)) return undefined;
  // `process` turns an IPv4-mapped IPv6 address into the IPv4 address it carries.
  const kind = ipaddr.process(address).range();
  if (protocol === 'http:') {
    return policy.allowHttpLoopback && kind === 'loopback'
      ? undefined
      : `http:// may only reach a loopback address (${address} is ${kind})`;
  }
  return kind === 'unicast' ? undefined : `${address} is a ${kind} address`;
}

/** The allow-list's matcher (the same as `METRICS_ALLOW`'s), made once per list. */
const matchers = new WeakMap<readonly Subnet[], (address: string) => boolean>();

function allowedBy(networks: readonly Subnet[]): (address: string) => boolean {
  let matcher = matchers.get(networks);
  if (!matcher) {
    matcher = subnetMatcher(networks);
    matchers.set(networks, matcher);
  }
  return matcher;
}

/** A URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Checks an endpoint's URL as it is registered: the scheme, no credentials, and a literal IP
 * host against the policy (a host name is checked on each delivery, on what it resolves to).
 * `400 1001` naming `url` with the reason.
 */
export function checkUrl(text: string, policy: AddressPolicy): URL {
  const refuse = (issue: string) =>
    new AppError('invalidRequest', { details: [{ field: 'url', issue }] });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (text.length > 2048) throw refuse('must be at most 2048 characters');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must be https://');
  if (url.protocol === 'http:' && !policy.allowHttpLoopback) {
    // Said to whoever tries a local receiver in development: the setting that allows it.
    throw refuse(
      'must be https:// (http:// to a loopback address only with WEBHOOK_ALLOW_HTTP_LOOPBACK=true)',
    );
  }
  if (url.username !== '' || url.password !== '') throw refuse('must not carry credentials');
  const host = hostOf(url);
  if (ipaddr.isValid(host)) {
    const refusal = refusalOf(host, policy, url.protocol);
    if (refusal) throw refuse(`is not allowed: ${refusal}`);
  } else if (url.protocol === 'http:' && host !== 'localhost') {
    throw refuse('http:// may only name a loopback address or localhost');
  }
  return url;
}

/** The error a refused address gives a delivery attempt. */
export class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED';
}

/**
 * A `lookup` for `http.request` that resolves the host and hands the socket only addresses the
 * policy allows: the connection goes to the very address that was checked, so a name that
 * resolves elsewhere on a second look (DNS rebinding) gains nothing.
 */
export function checkedLookup(policy: AddressPolicy, protocol: 'http:' | 'https:'): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const refusals: string[] = [];
      const allowed = addresses.filter((entry) => {
        const refusal = refusalOf(entry.address, policy, protocol);
        if (refusal) refusals.push(refusal);
        return refusal === undefined;
      });
      const first = allowed[0];
      if (!first) {
        callback(new AddressRefused(`${hostname}: ${refusals.join('; ')}`), '', 0);
        return;
      }
      if (options.all) callback(null, allowed as never, 0);
      else callback(null, first.address, first.family);
    });
  };
}

/** A literal IP host's refusal at delivery (`lookup` is not asked for a literal address). */
export function literalRefusal(url: URL, policy: AddressPolicy): string | undefined {
  const host = hostOf(url);
  const protocol = url.protocol === 'http:' ? 'http:' : 'https:';
  return ipaddr.isValid(host) ? refusalOf(host, policy, protocol) : undefined;
}
