/**
 * The tenant's changes of controls after a decision (channel changes, partner blocks) as records
 * for a download: each with its customer id, address and user agent opened with the customer's
 * key (null once erased), oldest first, both kinds merged by time.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/index.js';
import { personalReader } from '../subjects/index.js';
import {
  type ControlPageQuery,
  findChannelChangesPage,
  findPartnerBlockChangesPage,
} from './repository.js';

/** One change as a download lists it; the fields of the other kind are null. */
export interface ControlRecord {
  type: 'channel_change' | 'partner_block';
  change_id: string;
  changed_at: string;
  customer_id: string | null;
  product_code: string | null;
  channel: string | null;
  decision_id: string | null;
  partner_code: string | null;
  blocked: boolean;
  api_key_id: string | null;
  user_id: string | null;
  ip: string | null;
  user_agent: string | null;
  idempotency_key: string | null;
}

type Range = Pick<ControlPageQuery, 'from' | 'to'>;
type Page<R> = (after: ControlPageQuery['after']) => Promise<R[]>;

/** Every row of a kind in the range, a page at a time, opened. */
async function* opened<
  R extends { id: string; subject_id: string; personal: string; changed_at: string },
>(
  open: ReturnType<typeof personalReader>,
  page: Page<R>,
  toRecord: (row: R) => Omit<ControlRecord, 'customer_id' | 'ip' | 'user_agent'>,
  pageSize: number,
): AsyncGenerator<ControlRecord> {
  let after: ControlPageQuery['after'];
  for (;;) {
    const rows = await page(after);
    const fields = await open(rows);
    for (const [i, row] of rows.entries()) {
      const personal = fields[i]?.personal;
      yield {
        ...toRecord(row),
        customer_id: personal?.customer_id ?? null,
        ip: personal?.ip ?? null,
        user_agent: personal?.user_agent ?? null,
      };
    }
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    after = { changedAt: last.changed_at, id: last.id };
  }
}

/** Two streams each ordered by (time, id), as one ordered the same way. */
async function* merged(
  a: AsyncGenerator<ControlRecord>,
  b: AsyncGenerator<ControlRecord>,
): AsyncGenerator<ControlRecord> {
  let x = await a.next();
  let y = await b.next();
  while (!x.done || !y.done) {
    const takeX =
      !x.done &&
      (y.done ||
        x.value.changed_at < y.value.changed_at ||
        (x.value.changed_at === y.value.changed_at && x.value.change_id < y.value.change_id));
    if (takeX && !x.done) {
      yield x.value;
      x = await a.next();
    } else if (!y.done) {
      yield y.value;
      y = await b.next();
    }
  }
}

const common = (row: {
  id: string;
  changed_at: string;
  blocked: number;
  api_key_id: string | null;
  user_id: string | null;
  idempotency_key: string | null;
}) => ({
  change_id: row.id,
  changed_at: row.changed_at,
  blocked: Number(row.blocked) === 1,
  api_key_id: row.api_key_id,
  user_id: row.user_id,
  idempotency_key: row.idempotency_key,
});

export function controlRecords(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  range: Range,
  pageSize = 1000,
): AsyncGenerator<ControlRecord> {
  const open = personalReader(db, vault, tenantId);
  const channels = opened(
    open,
    (after) => findChannelChangesPage(db, tenantId, { ...range, after, limit: pageSize }),
    (row) => ({
      type: 'channel_change' as const,
      ...common(row),
      product_code: row.product_code,
      channel: row.channel,
      decision_id: null,
      partner_code: null,
    }),
    pageSize,
  );
  const partners = opened(
    open,
    (after) => findPartnerBlockChangesPage(db, tenantId, { ...range, after, limit: pageSize }),
    (row) => ({
      type: 'partner_block' as const,
      ...common(row),
      product_code: null,
      channel: null,
      decision_id: row.decision_id,
      partner_code: row.partner_code,
    }),
    pageSize,
  );
  return merged(channels, partners);
}

/**
 * The control records of a range of days, for a download: taking them is itself recorded
 * (before the first row is read), with the days as asked.
 */
export async function exportControlRecords(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  range: Range,
  asked: { from: string; to: string; timeZone: string },
  actor: Actor,
): Promise<AsyncGenerator<ControlRecord>> {
  await recordAudit(db, {
    ...actor,
    action: 'export.controls',
    details: { from: asked.from || null, to: asked.to || null, time_zone: asked.timeZone },
  });
  return controlRecords(db, vault, tenantId, range);
}
