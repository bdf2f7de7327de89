/**
 * What the store knows of each choice of a batch (writes.ts): the choice its event id
 * recorded before, if any, the visitor's subject, the signed-in customer's, and whether an endpoint takes the webhook
 * event. On PostgreSQL one statement answers the whole batch, as for decisions
 * (src/decisions/standing-repository.ts); on SQLite, where a statement costs no round trip, two
 * prepared look-ups by key a choice.
 */
import { sql } from 'kysely';
import { anySubscriber, subscribedSql } from '../journal/index.js';
import { isPostgres, type Trx } from '../platform/db.js';
import { sealedColumn, subjectLookup } from '../platform/id-type.js';
import { prepared } from '../platform/prepared.js';
import { answersInOrder, batchStatement } from '../platform/unnest.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import type { ChoiceMethod } from './banner-config.js';

/** What a batch asks about one choice. */
export interface ChoiceQuery {
  tenant_id: string;
  system_id: string;
  event_id: string;
  /** The visitor's keyed look-up. */
  lookup: string;
  /** The keyed look-up of the customer the visitor is signed in as; null when none is. */
  customer_lookup: string | null;
}

/** One choice as the store stands before the batch: nulls where nothing is. */
export interface StoredChoiceStanding {
  subject_id: string | null;
  wrapped_key: string | null;
  salt: string | null;
  /** The choice recorded before under the same event id. */
  earlier_id: string | null;
  earlier_at: string | null;
  earlier_method: ChoiceMethod | null;
  /** JSON, as stored. */
  earlier_categories: string | null;
  /** Whether an endpoint of the tenant takes `cookie_decision.recorded` (`subscribedSql`). */
  event_wanted: boolean;
  /** The signed-in customer's subject, as the visitor's: nulls when none (or none asked). */
  customer_subject_id: string | null;
  customer_wrapped_key: string | null;
  customer_salt: string | null;
}

const eventType = 'cookie_decision.recorded';

const choiceStandings = batchStatement(
  {
    i: 'integer',
    tenant_id: 'id',
    system_id: 'id',
    event_id: 'text',
    lookup: 'text',
    customer_lookup: 'text',
  },
  (db, asked) =>
    sql<StoredChoiceStanding & { i: number }>`
    select q.i, s.id as subject_id, ${sealedColumn(db, 's.wrapped_key')} as wrapped_key,
      ${sealedColumn(db, 's.salt')} as salt,
      c.id as earlier_id, c.decided_at as earlier_at, c.method as earlier_method,
      c.categories as earlier_categories,
      ${subscribedSql(sql.ref('q.tenant_id'), eventType, 'any')} as event_wanted,
      cs.id as customer_subject_id,
      ${sealedColumn(db, 'cs.wrapped_key')} as customer_wrapped_key,
      ${sealedColumn(db, 'cs.salt')} as customer_salt
    from (${asked}) as q
    left join subjects as s
      on s.tenant_id = q.tenant_id and s.lookup = ${subjectLookup(db, sql.ref('q.lookup'))}
    left join subjects as cs on cs.tenant_id = q.tenant_id
      and cs.lookup = ${subjectLookup(db, sql.ref('q.customer_lookup'))}
    left join cookie_decisions as c
      on c.tenant_id = q.tenant_id and c.system_id = q.system_id and c.event_id = q.event_id
  `,
  { writePath: true },
);

/** Every choice's standing, answered in the order asked. */
export async function findChoiceStandings(
  trx: Trx,
  queries: readonly ChoiceQuery[],
): Promise<StoredChoiceStanding[]> {
  if (queries.length === 0) return [];
  if (!isPostgres(trx)) {
    const standings: StoredChoiceStanding[] = [];
    for (const query of queries) standings.push(await findChoiceStanding(trx, query));
    return standings;
  }
  return answersInOrder(choiceStandings, trx, queries);
}

const earlierChoice = prepared((db, p: (name: 'tenantId' | 'systemId' | 'eventId') => never) =>
  db
    .selectFrom('cookie_decisions')
    .select([
      'id as earlier_id',
      'decided_at as earlier_at',
      'method as earlier_method',
      'categories as earlier_categories',
    ])
    .where('tenant_id', '=', p('tenantId'))
    .where('system_id', '=', p('systemId'))
    .where('event_id', '=', p('eventId')),
);

async function findChoiceStanding(trx: Trx, query: ChoiceQuery): Promise<StoredChoiceStanding> {
  const { tenant_id: tenantId } = query;
  const earlier = await earlierChoice.first(trx, {
    tenantId,
    systemId: query.system_id,
    eventId: query.event_id,
  });
  const subject = await findLiveSubjectRow(trx, tenantId, query.lookup);
  const customer =
    query.customer_lookup === null
      ? undefined
      : await findLiveSubjectRow(trx, tenantId, query.customer_lookup);
  return {
    subject_id: subject?.id ?? null,
    wrapped_key: subject?.wrapped_key ?? null,
    salt: subject?.salt ?? null,
    earlier_id: earlier?.earlier_id ?? null,
    earlier_at: earlier?.earlier_at ?? null,
    earlier_method: earlier?.earlier_method ?? null,
    earlier_categories: earlier?.earlier_categories ?? null,
    event_wanted: await anySubscriber(trx, tenantId, eventType, 'any'),
    customer_subject_id: customer?.id ?? null,
    customer_wrapped_key: customer?.wrapped_key ?? null,
    customer_salt: customer?.salt ?? null,
  };
}
