/** What a tenant fills in of its section 39 record (migration 0038): one row per tenant. */
export interface ProcessingRecordFieldsTable {
  tenant_id: string;
  controller_name: string;
  controller_address: string;
  controller_contact: string;
  dpo_name: string;
  dpo_contact: string;
  security_measures: string;
  updated_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    processing_record_fields: ProcessingRecordFieldsTable;
  }
}
