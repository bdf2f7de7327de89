import type { Executor } from '../platform/db.js';
import { mayPassOrApprove } from '../templates/index.js';
import { getTenantSettings } from '../tenants/index.js';
import { historyOf } from './configurations.js';
import { listConfigurationRows, listSteps, listSystemRows } from './repository.js';
import type { ConfigurationStep } from './table.js';

/** A banner configuration waiting at a step a user may take, as the dashboard lists it. */
export interface WaitingConfiguration {
  id: string;
  name: string;
  version: number;
  systemName: string;
  /** A review, an approval, or changes after it was sent back. */
  waitsFor: 'review' | 'approval' | 'changes';
  /** The last step taken on it. */
  last: { step: ConfigurationStep; actor: string; created_at: string };
}

/**
 * The tenant's banner configurations waiting for a step this user may take, as
 * `versionsWaitingFor` lists a template's versions: changes to those sent back (`edit`), a review
 * (`review`), an approval (`approve`); one four eyes keeps from the user (they made, changed or
 * submitted it, or passed its review) does not wait for them. The tenant's settings are read
 * once, and each waiting configuration's steps once.
 */
export async function configurationsWaitingFor(
  db: Executor,
  tenantId: string,
  user: { userId: string; may: { edit: boolean; review: boolean; approve: boolean } },
): Promise<WaitingConfiguration[]> {
  const [rows, systems, settings] = await Promise.all([
    listConfigurationRows(db, tenantId),
    listSystemRows(db, tenantId),
    getTenantSettings(db, tenantId),
  ]);
  const systemNames = new Map(systems.map((s) => [s.id, s.name]));
  const waiting: WaitingConfiguration[] = [];
  for (const row of rows) {
    const asked =
      row.status === 'pending_review'
        ? user.may.review
        : row.status === 'pending_approval'
          ? user.may.approve
          : row.status === 'draft' && user.may.edit;
    if (!asked) continue;
    const steps = await listSteps(db, tenantId, row.id);
    const last = steps.at(-1);
    const waitsFor =
      row.status === 'pending_review'
        ? 'review'
        : row.status === 'pending_approval'
          ? 'approval'
          : last?.step === 'sent_back'
            ? 'changes'
            : undefined;
    if (!last || !waitsFor) continue;
    const history = historyOf(settings, steps);
    if (waitsFor === 'review' && !mayPassOrApprove(history, user.userId, 'passed')) continue;
    if (waitsFor === 'approval' && !mayPassOrApprove(history, user.userId, 'approved')) continue;
    waiting.push({
      id: row.id,
      name: row.name,
      version: row.version,
      systemName: systemNames.get(row.system_id) ?? '',
      waitsFor,
      last: { step: last.step, actor: last.actor, created_at: last.created_at },
    });
  }
  return waiting;
}
