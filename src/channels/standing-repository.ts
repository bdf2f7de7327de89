/**
 * What the store knows of each change of a batch (record-changes.ts): the customer's subject and
 * the channel's current state. On PostgreSQL one statement answers the whole batch, as for
 * decisions (src/decisions/standing-repository.ts); on SQLite, where a statement costs no round
 * trip, two prepared look-ups by key a change.
 */
import { sql } from 'kysely';
import { anySubscriber, subscribedSql } from '../journal/index.js';
import { isPostgres, type Trx } from '../platform/db.js';
import { prepared } from '../platform/prepared.js';
import { unnestRows } from '../platform/unnest.js';
import { findLiveSubjectRow } from '../subjects/index.js';

/** What a batch asks about one change. */
export interface ChangeQuery {
  tenant_id: string;
  /** The customer's keyed look-up. */
  lookup: string;
  product_id: string;
  channel: string;
}

/** One change's channel as the store stands before the batch: nulls where nothing is. */
export interface StoredChannelStanding {
  subject_id: string | null;
  wrapped_key: string | null;
  salt: string | null;
  blocked: number | null;
  change_id: string | null;
  since: string | null;
  /** Whether an endpoint of the tenant takes `channel_change.recorded` (`subscribedSql`). */
  event_wanted: boolean;
}

const eventType = 'channel_change.recorded';

/** Every change's standing, answered in the order asked. */
export async function findChannelStandings(
  trx: Trx,
  queries: readonly ChangeQuery[],
): Promise<StoredChannelStanding[]> {
  if (queries.length === 0) return [];
  if (!isPostgres(trx)) {
    const standings: StoredChannelStanding[] = [];
    for (const query of queries) standings.push(await findChannelStanding(trx, query));
    return standings;
  }
  const asked = unnestRows(
    queries.map((query, i) => ({ ...query, i })),
    { i: 'integer', tenant_id: 'text', lookup: 'text', product_id: 'text', channel: 'text' },
  );
  const { rows } = await sql<StoredChannelStanding & { i: number }>`
    select q.i, s.id as subject_id, s.wrapped_key, s.salt,
      c.blocked, c.change_id, c.since,
      ${subscribedSql(sql.ref('q.tenant_id'), eventType, 'any')} as event_wanted
    from (${asked}) as q
    left join subjects as s on s.tenant_id = q.tenant_id and s.lookup = q.lookup
    left join channel_states as c
      on c.tenant_id = q.tenant_id and c.subject_id = s.id
      and c.product_id = q.product_id and c.channel = q.channel
  `.execute(trx);
  const byPosition: StoredChannelStanding[] = [];
  for (const { i, ...standing } of rows) byPosition[i] = standing;
  return byPosition;
}

const currentState = prepared(
  (db, p: (name: 'tenantId' | 'subjectId' | 'productId' | 'channel') => never) =>
    db
      .selectFrom('channel_states')
      .select(['blocked', 'change_id', 'since'])
      .where('tenant_id', '=', p('tenantId'))
      .where('subject_id', '=', p('subjectId'))
      .where('product_id', '=', p('productId'))
      .where('channel', '=', p('channel')),
);

async function findChannelStanding(trx: Trx, query: ChangeQuery): Promise<StoredChannelStanding> {
  const subject = await findLiveSubjectRow(trx, query.tenant_id, query.lookup);
  const state = subject
    ? await currentState.first(trx, {
        tenantId: query.tenant_id,
        subjectId: subject.id,
        productId: query.product_id,
        channel: query.channel,
      })
    : undefined;
  return {
    subject_id: subject?.id ?? null,
    wrapped_key: subject?.wrapped_key ?? null,
    salt: subject?.salt ?? null,
    blocked: state?.blocked ?? null,
    change_id: state?.change_id ?? null,
    since: state?.since ?? null,
    event_wanted: await anySubscriber(trx, query.tenant_id, eventType, 'any'),
  };
}
