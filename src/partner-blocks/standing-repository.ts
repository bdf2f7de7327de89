/**
 * What the store knows of each change of a batch (record-changes.ts): the customer's subject and
 * the partner's current state on the decision. On PostgreSQL one statement answers the whole
 * batch, as for channel changes (src/channels/standing-repository.ts); on SQLite, where a
 * statement costs no round trip, two prepared look-ups a change.
 */
import { sql } from 'kysely';
import { anySubscriber, subscribedSql } from '../journal/index.js';
import { isPostgres, type Trx } from '../platform/db.js';
import { prepared } from '../platform/prepared.js';
import { unnestRows } from '../platform/unnest.js';
import { findLiveSubjectRow } from '../subjects/index.js';

/** What a batch asks about one change. */
export interface BlockQuery {
  tenant_id: string;
  /** The customer's keyed look-up. */
  lookup: string;
  decision_id: string;
  partner_code: string;
}

/** One change's partner as the store stands before the batch: nulls where nothing is. */
export interface StoredBlockStanding {
  subject_id: string | null;
  wrapped_key: string | null;
  salt: string | null;
  blocked: number | null;
  change_id: string | null;
  since: string | null;
  /** Whether an endpoint of the tenant takes `partner_block.recorded` (`subscribedSql`). */
  event_wanted: boolean;
}

const eventType = 'partner_block.recorded';

/** Every change's standing, answered in the order asked. */
export async function findBlockStandings(
  trx: Trx,
  queries: readonly BlockQuery[],
): Promise<StoredBlockStanding[]> {
  if (queries.length === 0) return [];
  if (!isPostgres(trx)) {
    const standings: StoredBlockStanding[] = [];
    for (const query of queries) standings.push(await findBlockStanding(trx, query));
    return standings;
  }
  const asked = unnestRows(
    queries.map((query, i) => ({ ...query, i })),
    { i: 'integer', tenant_id: 'text', lookup: 'text', decision_id: 'text', partner_code: 'text' },
  );
  const { rows } = await sql<StoredBlockStanding & { i: number }>`
    select q.i, s.id as subject_id, s.wrapped_key, s.salt,
      b.blocked, b.change_id, b.since,
      ${subscribedSql(sql.ref('q.tenant_id'), eventType, 'any')} as event_wanted
    from (${asked}) as q
    left join subjects as s on s.tenant_id = q.tenant_id and s.lookup = q.lookup
    left join partner_block_states as b
      on b.tenant_id = q.tenant_id and b.decision_id = q.decision_id
      and b.partner_code = q.partner_code
  `.execute(trx);
  const byPosition: StoredBlockStanding[] = [];
  for (const { i, ...standing } of rows) byPosition[i] = standing;
  return byPosition;
}

const currentState = prepared((db, p: (name: 'tenantId' | 'decisionId' | 'partnerCode') => never) =>
  db
    .selectFrom('partner_block_states')
    .select(['blocked', 'change_id', 'since'])
    .where('tenant_id', '=', p('tenantId'))
    .where('decision_id', '=', p('decisionId'))
    .where('partner_code', '=', p('partnerCode')),
);

async function findBlockStanding(trx: Trx, query: BlockQuery): Promise<StoredBlockStanding> {
  const subject = await findLiveSubjectRow(trx, query.tenant_id, query.lookup);
  const state = await currentState.first(trx, {
    tenantId: query.tenant_id,
    decisionId: query.decision_id,
    partnerCode: query.partner_code,
  });
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
