import { randomBytes } from 'node:crypto';
import { newSalt, subjectCommitment } from '../src/proof/commitments.js';
import { sealPersonal } from '../src/subjects/personal.js';
import { createVault } from '../src/subjects/vault.js';

/**
 * The generated data, the same rows in both stores. One tenant, one template with two published
 * versions (`older`, `latest`, both allow_reconsent), and `size / 2` customers with two decisions
 * each, so that `pending` meets both answers:
 *
 * - even customers: `given` on older, then `given` on latest (latest is accepted);
 * - odd customers: `given` on older, then `withdraw` on older (latest is still pending).
 *
 * Decision n (0-based) is customer n/2's seq n%2+1. Ids and times grow with n, as the service's
 * UUIDv7 ids and clock would, so the loaders append to every index in order. Each customer is a
 * subject as the service makes them (src/subjects): a random-looking id, the keyed look-up of
 * their id, a key of their own sealed under the data key, and their decisions' customer id, IP
 * address and user agent sealed under that key.
 */

export interface Version {
  id: string;
  number: number;
  sha256: string;
}

/** What the command line created: the rows every generated decision points at. */
export interface Fixture {
  tenantId: string;
  apiKeyId: string;
  apiKey: string;
  templateId: string;
  templateCode: string;
  older: Version;
  latest: Version;
  /** A product of the tenant's, whose customers' channels `channel-changes` blocks. */
  productCode: string;
  /** A website with a published banner, when the cookie endpoints are measured. */
  cookies?: CookieFixture;
}

/** A cookie system made by the command line, with its banner configuration published. */
export interface CookieFixture {
  scope: string;
  /** The one origin the system allows: every choice is posted from it. */
  origin: string;
  configurationId: string;
  configurationVersion: number;
}

/** Customer ids: known ones ("c" + 9 digits) hold the loaded history; fresh ones ("f") none. */
export const customerIdWidth = 9;
/** How many never-seen customer ids the load spreads over, besides the known ones. */
export const freshCustomers = 100_000;

export function customerId(i: number): string {
  return `c${String(i).padStart(customerIdWidth, '0')}`;
}

/** 2024-01-01T00:00:00Z: generated history lies well before anything the service records. */
export const baseMs = Date.UTC(2024, 0, 1);

/** A UUIDv7-shaped id whose time part is decision n's time. */
export function decisionId(n: number): string {
  const time = (baseMs + n).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** One millisecond apart; the service's own ISO 8601 format. */
export function decidedAt(n: number): string {
  return new Date(baseMs + n).toISOString();
}

/** The same two expressions in SQL, for PostgreSQL's generate_series loader: `uuid`, as the store keeps ids (a text column takes one as its text). */
export function decisionIdSql(n: string): string {
  const time = `lpad(to_hex(${baseMs}::bigint + ${n}), 12, '0')`;
  return `(substr(${time}, 1, 8) || '-' || substr(${time}, 9, 4) || '-7000-8000-' || lpad(to_hex(${n}), 12, '0'))::uuid`;
}

export function decidedAtSql(n: string): string {
  return `to_char(${decidedAtTimestamptzSql(n)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The same time as a `timestamptz`: how PostgreSQL keeps the decisions' times since migration
 * 0061 (`decided_at`, the states' `last_decided_at`).
 */
export function decidedAtTimestamptzSql(n: string): string {
  return `((timestamp '1970-01-01' + (${baseMs}::bigint + ${n}) * interval '1 millisecond') at time zone 'UTC')`;
}

export const loaderIp = '127.0.0.1';
export const loaderUserAgent = 'bench-loader';

/**
 * The data key of every store the bench makes: the service and the command line get it in their
 * environment, the loaders seal with it. A new one per bench run.
 */
export const dataKey = randomBytes(32);

/** Customer i's subject id: UUIDv7-shaped, of the time of their first decision (2i). */
export function subjectId(i: number): string {
  const time = (baseMs + 2 * i).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-9000-${i.toString(16).padStart(12, '0')}`;
}

export function subjectIdSql(i: string): string {
  const time = `lpad(to_hex(${baseMs}::bigint + 2 * (${i})), 12, '0')`;
  return `(substr(${time}, 1, 8) || '-' || substr(${time}, 9, 4) || '-7000-9000-' || lpad(to_hex(${i}), 12, '0'))::uuid`;
}

/** What only the data key can make of customer i: their subject row and sealed decisions. */
export interface SealedCustomer {
  lookup: string;
  wrappedKey: string;
  salt: string;
  commitment: string;
  /** The sealed personal fields of decisions 2i and 2i + 1. */
  personal: [string, string];
}

/**
 * Seals customers of one tenant under `key` (the bench's `dataKey`, passed in: a worker thread
 * has a `dataKey` of its own): a new key per customer, used for both their decisions.
 */
export function customerSealer(key: Buffer, tenantId: string): (i: number) => SealedCustomer {
  const vault = createVault(key);
  return (i) => {
    const customer = customerId(i);
    const { key: subjectKey, wrapped } = vault.newKey(tenantId, subjectId(i));
    const salt = newSalt();
    const fields = { customer_id: customer, ip: loaderIp, user_agent: loaderUserAgent };
    return {
      lookup: vault.lookup(tenantId, customer),
      wrappedKey: wrapped,
      salt,
      commitment: subjectCommitment(salt, customer),
      personal: [
        sealPersonal(subjectKey, decisionId(2 * i), fields),
        sealPersonal(subjectKey, decisionId(2 * i + 1), fields),
      ],
    };
  };
}
