/**
 * What `tlog_entries.leaf` holds of a leaf: its hash alone, read as 64 lowercase hex digits
 * (migration 0052; PostgreSQL keeps its 32 bytes since 0062), or its text, as 0.4.0 wrote it (a
 * leaf's text always begins with its format's header, `consent-log/…`, so the two never mix
 * up). Every reader of the log takes either: receipts and proofs rebuild the text from the record
 * (`leaves.ts`), proofs and the audit need only the hash. The integrator reads a queued leaf
 * (`tlog_pending.leaf`) alike (`append.ts`).
 */
import { leafHash } from '../proof/index.js';
import { fromHex } from './repository.js';

const hashOnly = /^[0-9a-f]{64}$/;

/** The leaf hash (RFC 6962: SHA-256 of 0x00 and the text) of what the log holds of a leaf. */
export function loggedLeafHash(logged: string): Uint8Array {
  return hashOnly.test(logged) ? fromHex(logged) : leafHash(Buffer.from(logged, 'utf8'));
}

/** The leaf's text, when the log holds it; undefined when it holds the hash alone. */
export function loggedLeafText(logged: string): string | undefined {
  return hashOnly.test(logged) ? undefined : logged;
}

/** Whether a leaf's text is the leaf the log holds (as text or as its hash). */
export function isLoggedLeaf(text: string, logged: string): boolean {
  return hashOnly.test(logged)
    ? Buffer.from(leafHash(Buffer.from(text, 'utf8'))).toString('hex') === logged
    : text === logged;
}
