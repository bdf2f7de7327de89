/**
 * A customer of a tenant, as the store knows them: a random id, a keyed look-up of their id and
 * their own key, sealed. Erasing the customer drops all three; the row stays, without anything
 * personal, so the audit can still tell an erased record from a tampered one.
 */
export interface SubjectsTable {
  tenant_id: string;
  id: string;
  /**
   * Hex HMAC of the customer id under the tenant's look-up key (crypto.ts); null once erased.
   * PostgreSQL keeps its 32 bytes since migration 0063, read as the same hex; a statement that
   * finds a subject by it decodes the hex it is given (`subjectLookup`, platform/id-type.ts).
   */
  lookup: string | null;
  /** The customer's key sealed under the data key; null once erased. */
  wrapped_key: string | null;
  /** base64 salt of the subject commitment in the customer's leaves; null once erased. */
  salt: string | null;
  /** The subject commitment every leaf of this customer carries (public in the log already). */
  commitment: string;
  created_at: string;
  erased_at: string | null;
}

/**
 * The evidence commitment of a record whose subject was erased, as its values gave it while they
 * still opened: with the subject commitment the subject keeps, what rebuilds the record's whole
 * leaf once its personal fields are gone (docs/erasure.md).
 */
export interface ErasedEvidenceTable {
  tenant_id: string;
  record_id: string;
  /** base64, from `evidenceCommitment`, as the record's leaf carries it. */
  evidence: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    subjects: SubjectsTable;
    erased_evidence: ErasedEvidenceTable;
  }
}
