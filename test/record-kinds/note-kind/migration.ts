import type { Kysely, Migration } from 'kysely';
import { resolveIdType } from '../../../src/platform/id-type.js';

/**
 * The note kind's tables, as a kind's own migration (after the store's last). Its ids take the
 * store's id type, `uuid` on a PostgreSQL store whose ids are (src/platform/id-type.ts).
 */
export const createNotes: Migration = {
  async up(db: Kysely<unknown>) {
    const id = await resolveIdType(db as never);
    await db.schema
      .createTable('notes')
      .addColumn('tenant_id', id, (c) => c.notNull())
      .addColumn('id', id, (c) => c.notNull())
      .addColumn('subject_id', id, (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('api_key_id', id, (c) => c.notNull())
      .addColumn('personal', 'text', (c) => c.notNull())
      .addColumn('evidence_salt', 'text', (c) => c.notNull())
      .addColumn('noted_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('notes_pk', ['tenant_id', 'id'])
      .execute();
    await db.schema
      .createTable('note_states')
      .addColumn('tenant_id', id, (c) => c.notNull())
      .addColumn('subject_id', id, (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('note_id', id, (c) => c.notNull())
      .addColumn('since', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('note_states_pk', ['tenant_id', 'subject_id', 'topic'])
      .execute();
  },
};
