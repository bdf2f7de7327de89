/**
 * Publications as a kind of record: no customer's, nothing personal, only a leaf in the tenant's
 * log that the log's audit rebuilds from the stored row. What a decision's receipt shows of the
 * publication before it is read by the log's receipts (`publicationsOf`).
 */
import { publicationLeafFormat } from '../proof/index.js';
import type { RecordKind } from '../record-kinds/index.js';
import { findPublicationsByIds } from './repository.js';
import { fieldsOf } from './service.js';
import type { PublicationRow } from './table.js';

export const publications = {
  name: 'publication',
  records: {
    table: 'publications',
    format: publicationLeafFormat,
    noun: 'publication',
    sealed: false,
    byIds: findPublicationsByIds,
    expectedLeaf: (row: PublicationRow) => publicationLeafFormat.text(fieldsOf(row)),
  },
} satisfies RecordKind;
