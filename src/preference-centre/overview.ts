import { listChannels, tenantChannels } from '../channels/index.js';
import {
  browseCookieDecisions,
  type CookieDecisionListItem,
  getConfiguration,
  listSystems,
} from '../cookies/index.js';
import type { DecisionValue, Lapse } from '../decisions/index.js';
import { type DecisionPartner, listPartnerBlocks } from '../partner-blocks/index.js';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { listProducts } from '../products/index.js';
import type { Registry } from '../record-kinds/index.js';
import { customerStandings, getCustomerConsents } from '../records/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type Catalog, type LatestEntry, variantFor } from '../templates/index.js';
import type { PageLocale } from './schemas.js';

/** A text as the page shows it: the version's variant in the customer's locale. */
export interface ShownVersion {
  id: string;
  version: number;
  tag: string;
  locale: string;
  contentHtml: string;
}

/** One template the customer was asked about, as their page shows it. */
export interface TemplateOverview {
  code: string;
  name: string;
  /** The latest release, in the customer's locale: what a new `given` is a decision on. */
  latest: ShownVersion;
  /** Their decision on the latest release (on the variant `versionId`), if any. */
  onLatest: { id: string; versionId: string; decision: DecisionValue; decidedAt: string } | null;
  /** Their most recent decision on any version, and the text it was on. */
  last: { id: string; decision: DecisionValue; decidedAt: string; version: ShownVersion };
  /** A `given` on the latest release that has not lapsed. */
  consented: boolean;
  lapse: Lapse | undefined;
  /** The partners the consented release lists, each blocked or not on that decision. */
  partners: DecisionPartner[];
  /**
   * The sensitive data it covers (PDPA section 26): a `given` on it then asks for a separate
   * confirmation, the explicit act.
   */
  dataCategories: readonly string[];
}

export interface ChannelOverview {
  productCode: string;
  productName: string;
  channels: { code: string; name: string; blocked: boolean; since: string | null }[];
}

/** Every record of the customer, newest first, by its receipt's id. */
export interface RecordLine {
  id: string;
  at: string;
  kind: 'decision' | 'channel_change' | 'partner_block';
  /** What it was: a decision's value and template; a control's target and state. */
  what: string;
  blocked?: boolean;
}

/** A website of the tenant: the customer's newest cookie choice there, made while signed in. */
export interface CookieChoiceOverview {
  /** The system's scope. */
  system: string;
  systemName: string;
  decidedAt: string;
  /** Each category of the choice, in its order, allowed or refused. */
  categories: { key: string; name: string; allowed: boolean }[];
}

export interface CustomerOverview {
  templates: TemplateOverview[];
  channels: ChannelOverview[];
  /** Newest first; none unless a site signed the customer in to its banner. */
  cookies: CookieChoiceOverview[];
  records: RecordLine[];
}

/** How many records the page lists: the evidence pack has them all. */
const recordsShown = 100;

/**
 * What a customer's own page shows: each template they were asked about (their decision, the
 * text it was on and the latest one, in their locale; when it lapses; the partners of what they
 * agreed to), every product's channels, their newest cookie choice on each website made while
 * signed in (its categories named in the page's locale), and their records by receipt id. A
 * customer the tenant has no record of has no templates, every channel allowed and no cookie
 * choice.
 */
export async function customerOverview(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  customerId: string,
  requested: readonly string[],
  locale: PageLocale,
): Promise<CustomerOverview> {
  return {
    templates: await templateOverviews(db, catalog, vault, tenantId, customerId, requested),
    channels: await channelOverview(db, vault, tenantId, customerId),
    cookies: await cookieChoiceOverviews(db, vault, tenantId, customerId, locale),
    records: await recordLines(db, vault, registry, tenantId, customerId),
  };
}

/** The templates part of `customerOverview` alone (a withdrawal's page needs no more). */
export async function templateOverviews(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  requested: readonly string[],
): Promise<TemplateOverview[]> {
  const standings = await customerStandings(db, vault, tenantId, customerId);
  const templates: TemplateOverview[] = [];
  for (const standing of standings) {
    const release = await latestOrNone(catalog, tenantId, standing.template_code);
    if (!release) continue;
    const latest = shown(variantFor(release, requested));
    const lastVersion = await catalog.publishedById(tenantId, standing.last_consent_version_id);
    const onLatest =
      standing.decision_on_latest_id &&
      standing.decision_on_latest_version_id &&
      standing.decision_on_latest &&
      standing.decided_on_latest_at
        ? {
            id: standing.decision_on_latest_id,
            versionId: standing.decision_on_latest_version_id,
            decision: standing.decision_on_latest,
            decidedAt: standing.decided_on_latest_at,
          }
        : null;
    const consented = onLatest?.decision === 'given' && standing.lapse?.expired !== true;
    templates.push({
      code: standing.template_code,
      name: standing.template_name,
      latest,
      onLatest,
      last: {
        id: standing.last_decision_id,
        decision: standing.last_decision,
        decidedAt: standing.last_decided_at,
        version: lastVersion
          ? {
              id: lastVersion.id,
              version: Number(lastVersion.version),
              tag: lastVersion.tag,
              locale: lastVersion.locale,
              contentHtml: lastVersion.content_html,
            }
          : latest,
      },
      consented,
      lapse: standing.lapse,
      dataCategories: await catalog.dataCategories(tenantId, standing.template_code),
      partners:
        consented && onLatest
          ? await listPartnerBlocks(db, vault, tenantId, customerId, onLatest.id)
          : [],
    });
  }
  return templates;
}

async function latestOrNone(catalog: Catalog, tenantId: string, code: string) {
  try {
    return await catalog.latest(tenantId, code);
  } catch (error) {
    // A template retired since: nothing left to decide on, its records stay in the evidence pack.
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  }
}

function shown(entry: LatestEntry): ShownVersion {
  const presented = entry.presented;
  return {
    id: presented.consent_version_id,
    version: presented.version,
    tag: presented.tag,
    locale: entry.version.locale,
    contentHtml: presented.content_html,
  };
}

async function channelOverview(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
): Promise<ChannelOverview[]> {
  const [states, products, names] = await Promise.all([
    listChannels(db, vault, tenantId, customerId),
    listProducts(db, tenantId),
    tenantChannels(db, tenantId),
  ]);
  const channelName = new Map(names.map((c) => [c.code, c.name]));
  return products
    .filter((p) => !p.archived_at)
    .map((product) => ({
      productCode: product.code,
      productName: product.name,
      channels: states
        .filter((s) => s.product_code === product.code)
        .map((s) => ({
          code: s.channel,
          name: channelName.get(s.channel) ?? s.channel,
          blocked: s.blocked,
          since: s.since,
        })),
    }))
    .sort((a, b) => (a.productCode < b.productCode ? -1 : 1));
}

/**
 * The customer's newest signed-in choice on each system (docs/cookies.md, "Signed-in visitors"),
 * newest first. The first page of their choices has each system's newest unless there are more
 * pages: a system the page left out is then asked for alone.
 */
async function cookieChoiceOverviews(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  locale: PageLocale,
): Promise<CookieChoiceOverview[]> {
  const page = await browseCookieDecisions(db, vault, tenantId, { customerId }, undefined);
  const newest = new Map<string, CookieDecisionListItem>();
  for (const d of page.decisions) if (!newest.has(d.system)) newest.set(d.system, d);
  if (page.next) {
    for (const { scope } of await listSystems(db, tenantId)) {
      if (newest.has(scope)) continue;
      const filter = { customerId, scope };
      const [d] = (await browseCookieDecisions(db, vault, tenantId, filter, undefined)).decisions;
      if (d) newest.set(scope, d);
    }
  }
  const choices = [...newest.values()].sort((x, y) => y.decided_at.localeCompare(x.decided_at));
  const overviews: CookieChoiceOverview[] = [];
  for (const d of choices) {
    // The names the customer's banner showed: those of the configuration they chose on.
    const { content } = await getConfiguration(db, tenantId, d.configuration_id);
    const names = new Map(
      content.categories.map((c) => [
        c.key,
        c.texts[locale]?.name ?? c.texts[content.default_locale]?.name ?? c.key,
      ]),
    );
    overviews.push({
      system: d.system,
      systemName: d.system_name,
      decidedAt: d.decided_at,
      categories: Object.entries(d.categories).map(([key, allowed]) => ({
        key,
        name: names.get(key) ?? key,
        allowed,
      })),
    });
  }
  return overviews;
}

async function recordLines(
  db: Executor,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  customerId: string,
): Promise<RecordLine[]> {
  const consents = await getCustomerConsents(db, vault, registry, tenantId, customerId, {
    limit: String(recordsShown),
    include: 'controls',
  });
  const lines: RecordLine[] = consents.history.map((entry) => ({
    id: entry.decision_id,
    at: entry.decided_at,
    kind: 'decision',
    what: `${entry.decision} ${entry.template_code}`,
  }));
  for (const control of consents.controls ?? []) {
    lines.push(
      control.type === 'partner_block'
        ? {
            id: control.change_id,
            at: control.changed_at,
            kind: 'partner_block',
            what: control.partner_code,
            blocked: control.blocked,
          }
        : {
            id: control.change_id,
            at: control.changed_at,
            kind: 'channel_change',
            what: `${control.channel} ${control.product_code}`,
            blocked: control.blocked,
          },
    );
  }
  lines.sort((x, y) => (x.at === y.at ? y.id.localeCompare(x.id) : y.at.localeCompare(x.at)));
  return lines.slice(0, recordsShown);
}
