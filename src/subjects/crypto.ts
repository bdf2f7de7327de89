import { createCipheriv, createDecipheriv, createHmac, hkdfSync } from 'node:crypto';
import { randomBytesPooled } from '../platform/random.js';

// The cryptography of customer erasure (crypto-shredding): each customer's personal data is
// sealed under a key of their own, that key is kept only sealed under the service's data key, and
// customers are found through a keyed hash of their id. Destroying the customer's sealed key
// leaves their records unreadable for good, while every other record and the decision log stay.
// AES-256-GCM throughout: authenticated, so a changed byte or a record moved to another id fails.

const keyBytes = 32;
const nonceBytes = 12;
const tagBytes = 16;

/** A new customer key: 32 random bytes. */
export function newSubjectKey(): Buffer {
  return randomBytesPooled(keyBytes);
}

const derived = new WeakMap<Buffer, Map<string, Buffer>>();

/**
 * A sub-key of the data key per purpose and tenant (HKDF-SHA256), so no key serves two uses.
 * Derived once per data key, purpose and tenant: `pending` computes a look-up on every request.
 */
function subKey(
  dataKey: Buffer,
  purpose: 'lookup/v1' | 'wrap/v1' | 'account/v1' | 'held-act/v1',
  tenantId: string,
): Buffer {
  if (dataKey.length !== keyBytes) throw new RangeError('the data key has 32 bytes');
  let keys = derived.get(dataKey);
  if (!keys) {
    keys = new Map();
    derived.set(dataKey, keys);
  }
  const info = `${purpose}\n${tenantId}`;
  let key = keys.get(info);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), info, 32));
    keys.set(info, key);
  }
  return key;
}

/**
 * How a customer is found without their id in the store: HMAC-SHA256 of the id under the
 * tenant's lookup key (hex). Without the data key, nobody can test a guessed id against it.
 */
export function customerLookup(dataKey: Buffer, tenantId: string, customerId: string): string {
  return createHmac('sha256', subKey(dataKey, 'lookup/v1', tenantId))
    .update(customerId, 'utf8')
    .digest('hex');
}

/** The customer's key sealed under the data key, bound to the tenant and the subject's id. */
export function wrapSubjectKey(
  dataKey: Buffer,
  tenantId: string,
  subjectId: string,
  subjectKey: Buffer,
): string {
  return seal(subKey(dataKey, 'wrap/v1', tenantId), `subject-key/v1\n${subjectId}`, subjectKey);
}

/** The customer's key; throws when the sealed key was changed or belongs to another subject. */
export function unwrapSubjectKey(
  dataKey: Buffer,
  tenantId: string,
  subjectId: string,
  wrapped: string,
): Buffer {
  return open(subKey(dataKey, 'wrap/v1', tenantId), `subject-key/v1\n${subjectId}`, wrapped);
}

/** Personal fields of one record, sealed under the customer's key and bound to the record's id. */
export function sealFields(
  subjectKey: Buffer,
  recordId: string,
  fields: Record<string, unknown>,
): string {
  return seal(subjectKey, `fields/v1\n${recordId}`, Buffer.from(JSON.stringify(fields), 'utf8'));
}

/** The fields sealed for this record; throws on another key, another record or a changed byte. */
export function openFields(
  subjectKey: Buffer,
  recordId: string,
  sealed: string,
): Record<string, unknown> {
  const plain = open(subjectKey, `fields/v1\n${recordId}`, sealed);
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}

/**
 * A back-office account's secret (its TOTP key) sealed under the data key, bound to the account:
 * a copy of the store alone does not give anyone a second factor.
 */
export function sealAccountSecret(dataKey: Buffer, accountId: string, plain: string): string {
  return seal(
    subKey(dataKey, 'account/v1', ''),
    `account-secret/v1\n${accountId}`,
    Buffer.from(plain, 'utf8'),
  );
}

export function openAccountSecret(dataKey: Buffer, accountId: string, sealed: string): string {
  return open(
    subKey(dataKey, 'account/v1', ''),
    `account-secret/v1\n${accountId}`,
    sealed,
  ).toString('utf8');
}

/**
 * The first act of a co-consent, held until the second comes (decisions/held-acts.ts), sealed
 * under the data key and bound to the customer's look-up and the version: it names a
 * representative, and its customer may have no key of their own yet.
 */
export function sealHeldAct(dataKey: Buffer, binding: string, plain: string): string {
  return seal(
    subKey(dataKey, 'held-act/v1', ''),
    `held-act/v1\n${binding}`,
    Buffer.from(plain, 'utf8'),
  );
}

export function openHeldAct(dataKey: Buffer, binding: string, sealed: string): string {
  return open(subKey(dataKey, 'held-act/v1', ''), `held-act/v1\n${binding}`, sealed).toString(
    'utf8',
  );
}

/** base64(nonce || ciphertext || tag), the additional data authenticated with it. */
function seal(key: Buffer, aad: string, plain: Buffer): string {
  const nonce = randomBytesPooled(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

function open(key: Buffer, aad: string, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < nonceBytes + tagBytes) throw new Error('sealed data too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonceBytes));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  return Buffer.concat([
    decipher.update(bytes.subarray(nonceBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]);
}
