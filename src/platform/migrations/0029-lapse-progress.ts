import type { Kysely } from 'kysely';

/**
 * `lapse_progress`: how far the telling of lapsed consents (`consent.lapsed`) has gone on each
 * template with a validity period: every `given` decided through `(decided_through,
 * through_id)` was looked at. A template with a period when this migration runs starts three
 * days before the lapse boundary of that moment: consents that lapsed before the upgrade are not
 * told (their lapse is old news), except those of its last few days, told late.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('lapse_progress')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('decided_through', 'text', (c) => c.notNull())
    .addColumn('through_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lapse_progress_pk', ['tenant_id', 'template_id'])
    .execute();
  const kysely = db as Kysely<{
    templates: { tenant_id: string; id: string; validity_months: number | null };
    lapse_progress: {
      tenant_id: string;
      template_id: string;
      decided_through: string;
      through_id: string;
    };
  }>;
  const templates = await kysely
    .selectFrom('templates')
    .select(['tenant_id', 'id', 'validity_months'])
    .where('validity_months', 'is not', null)
    .execute();
  for (const template of templates) {
    // Months back from now, then three days more: a `given` decided by then had lapsed, however
    // a month's end cut its period short.
    const through = new Date();
    through.setUTCDate(1);
    through.setUTCMonth(through.getUTCMonth() - Number(template.validity_months));
    through.setUTCDate(Math.min(new Date().getUTCDate(), 28) - 3);
    await kysely
      .insertInto('lapse_progress')
      .values({
        tenant_id: template.tenant_id,
        template_id: template.id,
        decided_through: through.toISOString(),
        through_id: '',
      })
      .execute();
  }
}
