import { createCipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { v7 } from 'uuid';

// What 0006 computed when it was written: subject ids, customer look-ups, customer keys sealed
// under the data key, sealed personal fields and the data key's fingerprint. Kept here rather
// than imported, so a later change to the live code cannot change what this migration writes
// into a store that has not run it yet. The live code must keep reading what this wrote.

/** A time-ordered UUID (v7). */
export function newId0006(): string {
  return v7();
}

/** A new random salt (16 bytes, base64). */
export function newSalt0006(): string {
  return randomBytes(16).toString('base64');
}

/** SHA-256("subject/v1\n" || salt || customer id), base64. */
export function subjectCommitment0006(salt: string, customerId: string): string {
  return createHash('sha256')
    .update('subject/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(customerId, 'utf8')
    .digest('base64');
}

/** HMAC-SHA256 of a fixed label under the data key: names the key without revealing it. */
export function keyFingerprint0006(dataKey: Buffer): string {
  return createHmac('sha256', dataKey).update('consent-service/data-key-check/v1').digest('hex');
}

function subKey(dataKey: Buffer, purpose: 'lookup/v1' | 'wrap/v1', tenantId: string): Buffer {
  if (dataKey.length !== 32) throw new RangeError('the data key has 32 bytes');
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), `${purpose}\n${tenantId}`, 32));
}

/** AES-256-GCM: base64(nonce || ciphertext || tag), with the additional data authenticated. */
function seal(key: Buffer, aad: string, plain: Buffer): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** The data key at work, as 0006 used it. */
export interface Vault0006 {
  /** The keyed look-up under which a customer is found (hex). */
  lookup(tenantId: string, customerId: string): string;
  /** A new customer key, and the same sealed for storage. */
  newKey(tenantId: string, subjectId: string): { key: Buffer; wrapped: string };
}

export function createVault0006(dataKey: Buffer): Vault0006 {
  const lookupKeys = new Map<string, Buffer>();
  const wrapKeys = new Map<string, Buffer>();
  const cached = (
    keys: Map<string, Buffer>,
    purpose: 'lookup/v1' | 'wrap/v1',
    tenantId: string,
  ) => {
    let key = keys.get(tenantId);
    if (!key) {
      key = subKey(dataKey, purpose, tenantId);
      keys.set(tenantId, key);
    }
    return key;
  };
  return {
    lookup: (tenantId, customerId) =>
      createHmac('sha256', cached(lookupKeys, 'lookup/v1', tenantId))
        .update(customerId, 'utf8')
        .digest('hex'),
    newKey(tenantId, subjectId) {
      const key = randomBytes(32);
      const wrapped = seal(
        cached(wrapKeys, 'wrap/v1', tenantId),
        `subject-key/v1\n${subjectId}`,
        key,
      );
      return { key, wrapped };
    },
  };
}

/** A decision's personal fields sealed under the customer's key, bound to the record's id. */
export function sealPersonal0006(
  key: Buffer,
  recordId: string,
  fields: { customer_id: string; ip: string; user_agent: string | null },
): string {
  const json = JSON.stringify({
    customer_id: fields.customer_id,
    ip: fields.ip,
    user_agent: fields.user_agent,
  });
  return seal(key, `fields/v1\n${recordId}`, Buffer.from(json, 'utf8'));
}
