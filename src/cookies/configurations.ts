import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { logPublication } from '../publications/index.js';
import { fourEyesBar, fourEyesMessage } from '../templates/index.js';
import { getTenantSettings } from '../tenants/index.js';
import {
  type ConfigurationContent,
  checkContent,
  contentSha256,
  fingerprintOf,
} from './content.js';
import { defaultContent } from './defaults.js';
import {
  findConfiguration,
  findSystemById,
  insertConfiguration,
  insertStep,
  listConfigurationRows,
  listSteps,
  updateConfigurationRow,
  updateSystemRow,
} from './repository.js';
import { checkName, getSystem } from './systems.js';
import type {
  ConfigurationStatus,
  ConfigurationStep,
  CookieConfigurationRow,
  CookieSystemRow,
} from './table.js';
import { assertFairVariants } from './variants.js';

/** Who acts on a configuration: the audit's actor, and the user four eyes compares (null: CLI). */
export type Editor = Actor & { userId: string | null };

/** A configuration as the command line and the back-office show it. */
export interface CookieConfiguration {
  id: string;
  system: string;
  version: number;
  name: string;
  effective_date: string;
  status: ConfigurationStatus;
  published: boolean;
  content: ConfigurationContent;
  content_sha256: string;
  fingerprint: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export function presentConfiguration(
  row: CookieConfigurationRow,
  system: Pick<CookieSystemRow, 'scope' | 'published_configuration_id'>,
): CookieConfiguration {
  return {
    id: row.id,
    system: system.scope,
    version: Number(row.version),
    name: row.name,
    effective_date: row.effective_date,
    status: row.status,
    published: system.published_configuration_id === row.id,
    content: JSON.parse(row.content) as ConfigurationContent,
    content_sha256: row.content_sha256,
    fingerprint: row.fingerprint,
    created_at: row.created_at,
    updated_at: row.updated_at,
    published_at: row.published_at,
  };
}

function checkDay(day: string | undefined, field: string): string {
  const value = day ?? nowIso().slice(0, 10);
  const parsed = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(parsed.getTime())) {
    throw new AppError('invalidRequest', {
      details: [{ field, issue: 'must be a day YYYY-MM-DD' }],
    });
  }
  if (parsed.toISOString().slice(0, 10) !== value) {
    throw new AppError('invalidRequest', {
      details: [{ field, issue: 'is not a day of the calendar' }],
    });
  }
  return value;
}

/**
 * A new draft configuration of a system (audited `cookie_configuration.created`): the content
 * given, or the default texts with the categories named.
 */
export async function createConfiguration(
  trx: Trx,
  tenantId: string,
  input: {
    system: string;
    name: string;
    effective_date?: string;
    content?: unknown;
    categories?: readonly string[];
  },
  by: Editor,
): Promise<CookieConfiguration> {
  const system = await getSystem(trx, tenantId, input.system);
  const content = checkContent(input.content ?? defaultContent(input.categories ?? []));
  const now = nowIso();
  const version = Number(system.configurations_made) + 1;
  const row: CookieConfigurationRow = {
    tenant_id: tenantId,
    id: newId(),
    system_id: system.id,
    version,
    name: checkName(input.name),
    effective_date: checkDay(input.effective_date, 'effective_date'),
    status: 'draft',
    content: JSON.stringify(content),
    content_sha256: contentSha256(content),
    fingerprint: fingerprintOf(content),
    created_at: now,
    updated_at: now,
    published_at: null,
  };
  await insertConfiguration(trx, row);
  await updateSystemRow(trx, tenantId, system.id, { configurations_made: version });
  await step(trx, row, 'created', by, null, { name: row.name, version });
  return presentConfiguration(row, system);
}

/** Changes a draft (audited `cookie_configuration.changed`); `409 1005` once it left draft. */
export async function changeConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  changes: { name?: string; effective_date?: string; content?: unknown },
  by: Editor,
): Promise<CookieConfiguration> {
  const { row, system } = await getConfigurationRow(trx, tenantId, id);
  if (row.status !== 'draft') {
    throw new AppError('conflict', { message: 'Only a draft configuration can be changed.' });
  }
  const content =
    changes.content === undefined
      ? (JSON.parse(row.content) as ConfigurationContent)
      : checkContent(changes.content);
  const next: CookieConfigurationRow = {
    ...row,
    name: changes.name === undefined ? row.name : checkName(changes.name),
    effective_date:
      changes.effective_date === undefined
        ? row.effective_date
        : checkDay(changes.effective_date, 'effective_date'),
    content: JSON.stringify(content),
    content_sha256: contentSha256(content),
    fingerprint: fingerprintOf(content),
    updated_at: nowIso(),
  };
  await updateConfigurationRow(trx, tenantId, id, {
    name: next.name,
    effective_date: next.effective_date,
    content: next.content,
    content_sha256: next.content_sha256,
    fingerprint: next.fingerprint,
    updated_at: next.updated_at,
  });
  await step(trx, next, 'changed', by, null, {
    sha256_before: row.content_sha256,
    sha256_after: next.content_sha256,
  });
  return presentConfiguration(next, system);
}

/** The moves of a configuration's review, from the status each starts from. */
const moves = {
  submit: { from: 'draft', to: 'pending_review', step: 'submitted', guarded: undefined },
  pass: { from: 'pending_review', to: 'pending_approval', step: 'passed', guarded: 'passed' },
  send_back: { from: 'pending_review', to: 'draft', step: 'sent_back', guarded: undefined },
  approve: { from: 'pending_approval', to: 'approved', step: 'approved', guarded: 'approved' },
  reject: { from: 'pending_approval', to: 'rejected', step: 'rejected', guarded: undefined },
} as const satisfies Record<
  string,
  {
    from: ConfigurationStatus;
    to: ConfigurationStatus;
    step: ConfigurationStep;
    guarded: 'passed' | 'approved' | undefined;
  }
>;
export type ReviewMove = keyof typeof moves;

/**
 * Takes a step of the review, as a template's release does: submit, pass or send back, approve
 * or reject (audited `cookie_configuration.<step>`). With the tenant's four eyes on, whoever
 * wrote or submitted it may not pass or approve it (`fourEyesBar`); `409 1005` from any other
 * status than the step's.
 */
export async function reviewConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  move: ReviewMove,
  by: Editor,
  note?: string,
): Promise<CookieConfiguration> {
  const { row, system } = await getConfigurationRow(trx, tenantId, id);
  const spec = moves[move];
  if (row.status !== spec.from) {
    throw new AppError('conflict', {
      message: `This configuration is ${row.status.replace('_', ' ')}: it cannot be ${spec.step.replace('_', ' ')}.`,
    });
  }
  // An A/B test whose variants make rejecting harder or less prominent goes no further.
  if (spec.to !== 'draft' && spec.to !== 'rejected') {
    assertFairVariants(JSON.parse(row.content) as ConfigurationContent);
  }
  if (spec.guarded && by.userId !== null) {
    const bar = fourEyesBar(await reviewHistory(trx, tenantId, row), by.userId, spec.guarded);
    if (bar)
      throw new AppError('forbidden', {
        message: fourEyesMessage(bar, spec.guarded, 'configuration'),
      });
  }
  const next = { ...row, status: spec.to as ConfigurationStatus, updated_at: nowIso() };
  await updateConfigurationRow(trx, tenantId, id, {
    status: next.status,
    updated_at: next.updated_at,
  });
  await step(trx, next, spec.step, by, note ?? null, {});
  return presentConfiguration(next, system);
}

/**
 * What four eyes reads of a configuration: the tenant's settings, its steps, its authors. The
 * service's refusals and the pages' buttons (review-bar.ts) both read it.
 */
export async function reviewHistory(
  db: Executor,
  tenantId: string,
  row: Pick<CookieConfigurationRow, 'id'>,
) {
  const [settings, steps] = await Promise.all([
    getTenantSettings(db, tenantId),
    listSteps(db, tenantId, row.id),
  ]);
  return historyOf(settings, steps);
}

/** `reviewHistory` of steps and settings already read (a list of many configurations). */
export function historyOf(
  settings: { fourEyes: boolean; distinctApprover: boolean },
  allSteps: ReadonlyArray<{ step: ConfigurationStep; user_id: string | null }>,
) {
  const steps = allSteps.filter((s) => s.user_id !== null);
  return {
    fourEyes: settings.fourEyes,
    distinctApprover: settings.distinctApprover,
    steps: steps
      .filter((s) => s.step === 'submitted' || s.step === 'passed')
      .map((s) => ({ step: s.step as 'submitted' | 'passed', user_id: s.user_id as string })),
    authors: [
      ...new Set(
        steps
          .filter((s) => s.step === 'created' || s.step === 'changed')
          .map((s) => s.user_id as string),
      ),
    ],
  };
}

/**
 * Makes an approved configuration the one live on its system (audited
 * `cookie_configuration.published`); the one published before stops being so. Visitors whose
 * choice fits its fingerprint are not asked again.
 */
export async function publishConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
): Promise<CookieConfiguration> {
  const { row, system } = await getConfigurationRow(trx, tenantId, id);
  if (row.status !== 'approved') {
    throw new AppError('conflict', { message: 'Only an approved configuration can be published.' });
  }
  assertFairVariants(JSON.parse(row.content) as ConfigurationContent);
  const now = nowIso();
  await updateSystemRow(trx, tenantId, system.id, {
    published_configuration_id: row.id,
    updated_at: now,
  });
  await updateConfigurationRow(trx, tenantId, row.id, { published_at: now, updated_at: now });
  // Its content is one canonical JSON for every locale: one text, which a choice commits to.
  await logPublication(trx, tenantId, {
    what: 'configuration',
    of: row.id,
    version: Number(row.version),
    publishedAt: now,
    effectiveAt: now,
    texts: [{ locale: '*', id: row.id, sha256: row.content_sha256, file: null }],
    partners: [],
  });
  const next = { ...row, published_at: now, updated_at: now };
  await step(trx, next, 'published', by, null, {
    replaced: system.published_configuration_id,
  });
  return presentConfiguration(next, { ...system, published_configuration_id: row.id });
}

/** Takes a system's configuration off its site: the banner script answers 404 until the next. */
export async function unpublishConfiguration(
  trx: Trx,
  tenantId: string,
  id: string,
  by: Editor,
): Promise<CookieConfiguration> {
  const { row, system } = await getConfigurationRow(trx, tenantId, id);
  if (system.published_configuration_id !== row.id) {
    throw new AppError('conflict', { message: 'This configuration is not published.' });
  }
  await updateSystemRow(trx, tenantId, system.id, {
    published_configuration_id: null,
    updated_at: nowIso(),
  });
  await step(trx, row, 'unpublished', by, null, {});
  return presentConfiguration(row, { ...system, published_configuration_id: null });
}

/**
 * The command line's publish, outside review as `version publish` is: the system's newest
 * configuration that is not rejected is approved by the operator of the command line (when it is
 * not yet) and published.
 */
export async function publishLatestOutsideReview(
  trx: Trx,
  tenantId: string,
  scope: string,
  by: Editor,
): Promise<CookieConfiguration> {
  const system = await getSystem(trx, tenantId, scope);
  const latest = (await listConfigurationRows(trx, tenantId, system.id))
    .filter((c) => c.status !== 'rejected')
    .sort((a, b) => Number(b.version) - Number(a.version))[0];
  if (!latest) {
    throw new AppError('notFound', { message: 'This system has no configuration to publish.' });
  }
  if (latest.status !== 'approved') {
    const now = nowIso();
    await updateConfigurationRow(trx, tenantId, latest.id, { status: 'approved', updated_at: now });
    await step(trx, latest, 'approved', by, 'outside review', {
      from: latest.status,
    });
  }
  return publishConfiguration(trx, tenantId, latest.id, by);
}

async function getConfigurationRow(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<{ row: CookieConfigurationRow; system: CookieSystemRow }> {
  const row = /^[0-9a-f-]{36}$/.test(id) ? await findConfiguration(db, tenantId, id) : undefined;
  if (!row) throw new AppError('notFound', { message: 'No such configuration.' });
  const system = await findSystemOf(db, tenantId, row.system_id);
  return { row, system };
}

async function findSystemOf(db: Executor, tenantId: string, systemId: string) {
  const system = await findSystemById(db, tenantId, systemId);
  if (!system) throw new Error(`configuration of a missing system ${systemId}`);
  return system;
}

export async function getConfiguration(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<CookieConfiguration> {
  const { row, system } = await getConfigurationRow(db, tenantId, id);
  return presentConfiguration(row, system);
}

/** A system's configurations (or every system's), newest first. */
export async function listConfigurations(
  db: Executor,
  tenantId: string,
  scope?: string,
): Promise<CookieConfiguration[]> {
  const system = scope === undefined ? undefined : await getSystem(db, tenantId, scope);
  const rows = await listConfigurationRows(db, tenantId, system?.id);
  const systems = new Map<string, CookieSystemRow>();
  const out: CookieConfiguration[] = [];
  for (const row of rows) {
    const owner = systems.get(row.system_id) ?? (await findSystemOf(db, tenantId, row.system_id));
    systems.set(row.system_id, owner);
    out.push(presentConfiguration(row, owner));
  }
  return out;
}

/** A configuration's steps, oldest first: its timeline. */
export function configurationSteps(db: Executor, tenantId: string, id: string) {
  return listSteps(db, tenantId, id);
}

/** Writes a step of the configuration and its audit entry, in the act's transaction. */
async function step(
  trx: Trx,
  row: Pick<CookieConfigurationRow, 'tenant_id' | 'id'>,
  kind: ConfigurationStep,
  by: Editor,
  note: string | null,
  details: Record<string, unknown>,
): Promise<void> {
  await insertStep(trx, {
    tenant_id: row.tenant_id,
    id: newId(),
    configuration_id: row.id,
    step: kind,
    user_id: by.userId,
    actor: by.actor,
    note,
    created_at: nowIso(),
  });
  const { userId: _userId, ...actor } = by;
  await recordAudit(trx, {
    ...actor,
    action: `cookie_configuration.${kind}`,
    target: row.id,
    details: note === null ? details : { ...details, note },
  });
}
