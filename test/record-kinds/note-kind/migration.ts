import type { Kysely, Migration } from 'kysely';

/** The note kind's tables, as a kind's own migration (after the store's last). */
export const createNotes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('notes')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('api_key_id', 'text', (c) => c.notNull())
      .addColumn('personal', 'text', (c) => c.notNull())
      .addColumn('evidence_salt', 'text', (c) => c.notNull())
      .addColumn('noted_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('notes_pk', ['tenant_id', 'id'])
      .execute();
    await db.schema
      .createTable('note_states')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('note_id', 'text', (c) => c.notNull())
      .addColumn('since', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('note_states_pk', ['tenant_id', 'subject_id', 'topic'])
      .execute();
  },
};
