/**
 * The tenant's changes of controls after a decision (channel changes, partner blocks) as records
 * for a download: each with its customer id, address and user agent opened with the customer's
 * key (null once erased), oldest first, both kinds merged by time.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import type { ReadOn } from '../platform/replicas.js';
import type { HistoryPageQuery, KindHistory, Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { personalOpener } from '../subjects/index.js';

/** One change as a download lists it; the fields of the other kinds are null. */
export interface ControlRecord {
  type: string;
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

type Range = Pick<HistoryPageQuery, 'from' | 'to'>;

/** A download's columns of the kinds a change is not of. */
const none = { product_code: null, channel: null, decision_id: null, partner_code: null };

/** Every change of a kind in the range, a page at a time (each its own read), opened. */
async function* opened(
  readOn: ReadOn,
  open: ReturnType<typeof personalOpener>,
  tenantId: string,
  history: KindHistory,
  range: Range,
  pageSize: number,
): AsyncGenerator<ControlRecord> {
  let after: HistoryPageQuery['after'];
  for (;;) {
    const position = after;
    const { rows, fields } = await readOn(async (on) => {
      const rows = await history.page(on, tenantId, { ...range, after: position, limit: pageSize });
      return { rows, fields: await open(on, rows) };
    });
    for (const [i, row] of rows.entries()) {
      const personal = fields[i]?.personal;
      yield {
        ...none,
        ...(row.entry as Omit<
          ControlRecord,
          keyof typeof none | 'customer_id' | 'ip' | 'user_agent'
        >),
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

/** Streams each ordered by (time, id), as one ordered the same way. */
async function* merged(streams: AsyncGenerator<ControlRecord>[]): AsyncGenerator<ControlRecord> {
  const heads = await Promise.all(streams.map((stream) => stream.next()));
  for (;;) {
    let first = -1;
    heads.forEach((head, i) => {
      const best = heads[first];
      if (head.done) return;
      if (
        !best ||
        best.done ||
        head.value.changed_at < best.value.changed_at ||
        (head.value.changed_at === best.value.changed_at &&
          head.value.change_id < best.value.change_id)
      ) {
        first = i;
      }
    });
    const head = heads[first];
    if (!head || head.done) return;
    yield head.value;
    heads[first] = await (streams[first] as AsyncGenerator<ControlRecord>).next();
  }
}

/**
 * The tenant's changes of every kind a download of controls lists, merged by time; each page
 * of each kind read through `readOn` (on a replica: one that has replayed every write answered
 * before the page was asked).
 */
export function controlRecords(
  readOn: ReadOn,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  range: Range,
  pageSize = 1000,
): AsyncGenerator<ControlRecord> {
  const open = personalOpener(vault, tenantId);
  return merged(
    registry.kinds.flatMap(({ history }) =>
      history ? [opened(readOn, open, tenantId, history, range, pageSize)] : [],
    ),
  );
}

/**
 * The control records of a range of days, for a download: taking them is itself recorded on
 * `db`, the primary (before the first row is read), with the days as asked; the rows are read
 * through `readOn` (`controlRecords`).
 */
export async function exportControlRecords(
  db: Executor,
  readOn: ReadOn,
  vault: SubjectVault,
  registry: Registry,
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
  return controlRecords(readOn, vault, registry, tenantId, range);
}
