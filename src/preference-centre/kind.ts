import type { RecordKind } from '../record-kinds/index.js';
import { deleteSubjectCodes } from './repository.js';

/**
 * What the preference centre keeps of a customer beside the records it makes through the other
 * kinds: their e-mail sign-in codes, kept by their look-up, which none may outlive. An entry of
 * the registry of kinds with an erasure part alone.
 */
export const preferenceCodes = {
  name: 'preference-code',
  erasure: {
    drop: async ({ trx, tenantId, lookup }) => {
      await deleteSubjectCodes(trx, tenantId, lookup);
      return undefined;
    },
  },
} satisfies RecordKind;
