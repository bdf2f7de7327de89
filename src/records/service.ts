import { type ActedBy, type Lapse, lapseOf } from '../decisions/index.js';
import { blockedPartnersAsOf, decisionListsPartners } from '../partner-blocks/index.js';
import { decodeCursor, encodeCursor } from '../platform/cursor.js';
import type { Executor } from '../platform/db.js';
import { nowIso, storedInstant } from '../platform/time.js';
import type { Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { findSubjectId, personalReader, type StoredSubjectKey } from '../subjects/index.js';
import { type Catalog, validityAsOf, variantFor } from '../templates/index.js';
import { readCustomerRecord } from './record-reads.js';
import {
  findDecisionAsOf,
  findLastDecisionOnReleaseAsOf,
  findLatestPublishedAsOf,
  hasDecisionOnVersionAsOf,
} from './repository.js';
import {
  type ConsentAsOf,
  type CustomerConsents,
  defaultPageSize,
  type HistoryQuery,
  maxControls,
} from './schemas.js';

/**
 * A customer's whole record: where they stand on each template they decided on, and one page of
 * their decisions, newest first. A customer with no decision has empty lists.
 */
export async function getCustomerConsents(
  db: Executor,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  customerId: string,
  query: HistoryQuery,
  withLocale = false,
): Promise<CustomerConsents> {
  const limit = query.limit === undefined ? defaultPageSize : Number(query.limit);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  // One row more than the page tells whether another page follows.
  // The record carries the customer's subject with its key.
  const record = await readCustomerRecord(db, vault, tenantId, customerId, {
    limit: limit + 1,
    after,
  });
  const subjectId = record?.id;
  const standings = record?.standings ?? [];
  const rows = record?.page ?? [];
  const history = rows.slice(0, limit);
  const last = history.at(-1);
  const now = nowIso();
  return {
    customer_id: customerId,
    templates: standings.map((row) => {
      const lapse = lapseOf(
        row.decision_on_latest,
        row.decided_on_latest_at,
        row.validity_months,
        now,
      );
      return {
        template_code: row.template_code,
        latest_version: {
          consent_version_id: row.latest_id,
          version: numbered(row.latest_version),
          tag: row.latest_tag,
        },
        accepted: row.decision_on_latest_id !== null && lapse?.expired !== true,
        last_decision: {
          decision_id: row.last_decision_id,
          decision: row.last_decision,
          consent_version_id: row.last_consent_version_id,
          version: numbered(row.last_version),
          tag: row.last_tag,
          decided_at: row.last_decided_at,
          ...(withLocale ? { locale: row.last_locale } : {}),
        },
        ...(lapse ? { expired: lapse.expired, expires_at: lapse.expires_at } : {}),
      };
    }),
    history: (record ? await withActedBy(db, vault, tenantId, record, history) : []).map((entry) =>
      withoutLocaleUnless(entry, withLocale),
    ),
    next_cursor:
      rows.length > limit && last
        ? encodeCursor({ decidedAt: last.decided_at, id: last.decision_id })
        : null,
    ...(query.include === 'controls'
      ? { controls: subjectId ? await controlsOf(db, registry, tenantId, subjectId) : [] }
      : {}),
  };
}

/**
 * A customer's changes of every kind a history lists (channel changes, partner blocks), newest
 * first (then by id, as the history orders decisions): the `maxControls` newest of all together.
 */
async function controlsOf(db: Executor, registry: Registry, tenantId: string, subjectId: string) {
  const entries = [];
  for (const kind of registry.kinds) {
    if (kind.history) entries.push(...(await kind.history.entries(db, tenantId, subjectId)));
  }
  entries.sort((x, y) =>
    x.changed_at === y.changed_at
      ? y.change_id.localeCompare(x.change_id)
      : y.changed_at.localeCompare(x.changed_at),
  );
  // The entries are the kinds' own, as `CustomerConsents` documents them.
  return entries.slice(0, maxControls) as NonNullable<CustomerConsents['controls']>;
}

/**
 * What was in force for the customer and template at the moment `at` (ISO 8601 with a time
 * zone): their most recent decision by then, the latest version published by then, and whether
 * they had decided on that version (`accepted`, as `pending` would have answered): under the
 * validity period in force at `at`, a `given` that had lapsed by then is not accepted. The
 * template must be one `latest` and `pending` know: `404 1004` otherwise.
 */
export async function getConsentAsOf(
  db: Executor,
  catalog: Pick<Catalog, 'latest'>,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
  at: string,
  withLocale = false,
): Promise<ConsentAsOf> {
  const release = await catalog.latest(tenantId, templateCode);
  const { version: current } = variantFor(release, []);
  const templateId = current.template_id;
  const when = storedInstant(at);
  const subjectId = await findSubjectId(db, vault, tenantId, customerId);
  const decision = subjectId
    ? await findDecisionAsOf(db, tenantId, subjectId, templateId, when)
    : undefined;
  const latest = await findLatestPublishedAsOf(db, tenantId, templateId, when);
  const validity = await validityAsOf(db, tenantId, templateId, when);
  let accepted: boolean;
  let lapse: Lapse | undefined;
  if (latest === undefined || subjectId === undefined) {
    accepted = false;
  } else if (validity === null) {
    accepted =
      decision?.version === latest.version ||
      (await hasDecisionOnVersionAsOf(db, tenantId, subjectId, templateId, latest.id, when));
  } else {
    // The most recent decision on the release by then: the template's, when it is on it.
    const onLatest =
      decision?.version === latest.version
        ? decision
        : await findLastDecisionOnReleaseAsOf(db, tenantId, subjectId, templateId, latest.id, when);
    lapse = lapseOf(onLatest?.decision, onLatest?.decided_at, validity, when);
    accepted = onLatest !== undefined && lapse?.expired !== true;
  }
  return {
    customer_id: customerId,
    template_code: current.template_code,
    at: when,
    decision:
      decision && subjectId
        ? withoutLocaleUnless(
            (await withActedBy(db, vault, tenantId, subjectId, [decision]))[0] as Omit<
              typeof decision,
              'personal'
            >,
            withLocale,
          )
        : null,
    latest_version: latest
      ? {
          consent_version_id: latest.id,
          version: numbered(latest.version),
          tag: latest.tag,
          published_at: publishedAt(latest.published_at),
        }
      : null,
    accepted,
    ...(lapse ? { expired: lapse.expired, expires_at: lapse.expires_at } : {}),
    ...(decision ? await partnersBlockedAsOf(db, tenantId, decision.decision_id, when) : {}),
  };
}

/**
 * `blocked_partners` of an as-of answer: the partners blocked on its decision at that moment,
 * only when the decision's version lists partners (an answer without them stays as it was).
 */
async function partnersBlockedAsOf(
  db: Executor,
  tenantId: string,
  decisionId: string,
  when: string,
): Promise<{ blocked_partners?: string[] }> {
  if (!(await decisionListsPartners(db, tenantId, decisionId))) return {};
  const blocked = await blockedPartnersAsOf(db, tenantId, [decisionId], when);
  return { blocked_partners: blocked.get(decisionId) ?? [] };
}

/**
 * The customer's decisions without their sealed fields, each with `acted_by` when it carried
 * one (PDPA section 20): every other entry is as before.
 */
async function withActedBy<T extends { decision_id: string; personal: string }>(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  /** The subject's id, or its row when already read with its key (not read again). */
  subject: string | StoredSubjectKey,
  rows: readonly T[],
): Promise<Array<Omit<T, 'personal'> & { acted_by?: ActedBy }>> {
  const read = typeof subject === 'string' ? [] : [subject];
  const subjectId = typeof subject === 'string' ? subject : subject.id;
  const opened = await personalReader(
    db,
    vault,
    tenantId,
    read,
  )(rows.map((row) => ({ id: row.decision_id, subject_id: subjectId, personal: row.personal })));
  return rows.map(({ personal: _sealed, ...row }, i) => {
    const acted = opened[i]?.personal?.acted_by;
    return acted ? { ...row, acted_by: acted } : row;
  });
}

function numbered(version: number | null): number {
  if (version === null) throw new Error('A published version has no number');
  return Number(version);
}

function publishedAt(time: string | null): string {
  if (time === null) throw new Error('A published version has no publication time');
  return time;
}

/** A decision with the locale of its text only when the request named a locale. */
function withoutLocaleUnless<T extends { locale: string }>(
  row: T,
  withLocale: boolean,
): Omit<T, 'locale'> & { locale?: string } {
  const { locale, ...rest } = row;
  return withLocale ? { ...rest, locale } : rest;
}
