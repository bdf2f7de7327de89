/**
 * An `Idempotency-Key`'s first answer, kept in the transaction of the write it answered
 * (migration 0001; every kind of record whose requests take a key shares the tenant's keys).
 */
export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  /** The customer's keyed look-up (src/subjects/crypto.ts), to refuse the key for another one. */
  customer_lookup: string;
  /** Hex SHA-256 of the canonical JSON of the request body (a channel change's: method, path and body). */
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'subjects';
