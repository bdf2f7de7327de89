import type { Executor } from '../platform/db.js';
import { listConfigurationRows, listSteps, listSystemRows } from './repository.js';
import { configurationFourEyes } from './review-bar.js';
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
 * submitted it, or passed its review) does not wait for them.
 */
export async function configurationsWaitingFor(
  db: Executor,
  tenantId: string,
  user: { userId: string; may: { edit: boolean; review: boolean; approve: boolean } },
): Promise<WaitingConfiguration[]> {
  const [rows, systems] = await Promise.all([
    listConfigurationRows(db, tenantId),
    listSystemRows(db, tenantId),
  ]);
  const systemNames = new Map(systems.map((s) => [s.id, s.name]));
  const waiting: WaitingConfiguration[] = [];
  for (const row of rows) {
    if (
      row.status !== 'pending_review' &&
      row.status !== 'pending_approval' &&
      row.status !== 'draft'
    )
      continue;
    const steps = await listSteps(db, tenantId, row.id);
    const last = steps.at(-1);
    if (!last) continue;
    const waitsFor =
      row.status === 'pending_review'
        ? 'review'
        : row.status === 'pending_approval'
          ? 'approval'
          : row.status === 'draft' && last.step === 'sent_back'
            ? 'changes'
            : undefined;
    if (!waitsFor) continue;
    const allowed =
      waitsFor === 'changes'
        ? user.may.edit
        : (waitsFor === 'review' ? user.may.review : user.may.approve) &&
          (await configurationFourEyes(db, tenantId, row, user.userId)) === undefined;
    if (!allowed) continue;
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
