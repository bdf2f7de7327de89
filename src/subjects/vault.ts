import {
  customerLookup,
  newSubjectKey,
  openAccountSecret,
  openHeldAct,
  sealAccountSecret,
  sealHeldAct,
  unwrapSubjectKey,
  wrapSubjectKey,
} from './crypto.js';

/** The data key at work: every use of it goes through here. */
export interface SubjectVault {
  /** The data key itself, for the migration that seals records written before it. */
  readonly dataKey: Buffer;
  /** The keyed look-up under which a customer is found (hex). */
  lookup(tenantId: string, customerId: string): string;
  /** A new customer key, and the same sealed for storage. */
  newKey(tenantId: string, subjectId: string): { key: Buffer; wrapped: string };
  unwrap(tenantId: string, subjectId: string, wrapped: string): Buffer;
  /** A back-office account's secret (two-factor key), sealed for the store and opened again. */
  accountSecrets: {
    seal(accountId: string, plain: string): string;
    open(accountId: string, sealed: string): string;
  };
  /** The first act of a co-consent, held until the second: sealed and opened again. */
  heldActs: {
    seal(binding: string, plain: string): string;
    open(binding: string, sealed: string): string;
  };
}

export function createVault(dataKey: Buffer): SubjectVault {
  return {
    dataKey,
    lookup: (tenantId, customerId) => customerLookup(dataKey, tenantId, customerId),
    newKey(tenantId, subjectId) {
      const key = newSubjectKey();
      return { key, wrapped: wrapSubjectKey(dataKey, tenantId, subjectId, key) };
    },
    unwrap: (tenantId, subjectId, wrapped) =>
      unwrapSubjectKey(dataKey, tenantId, subjectId, wrapped),
    accountSecrets: {
      seal: (accountId, plain) => sealAccountSecret(dataKey, accountId, plain),
      open: (accountId, sealed) => openAccountSecret(dataKey, accountId, sealed),
    },
    heldActs: {
      seal: (binding, plain) => sealHeldAct(dataKey, binding, plain),
      open: (binding, sealed) => openHeldAct(dataKey, binding, sealed),
    },
  };
}
