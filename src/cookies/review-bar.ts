import type { Executor } from '../platform/db.js';
import { fourEyesBar, fourEyesMessage, type GuardedStep } from '../templates/index.js';
import { getTenantSettings } from '../tenants/index.js';
import { listSteps } from './repository.js';
import type { ConfigurationStatus } from './table.js';

/** The guarded step a configuration waits for at each status, if any. */
const waitingFor: Partial<Record<ConfigurationStatus, GuardedStep>> = {
  pending_review: 'passed',
  pending_approval: 'approved',
};

/**
 * Why four eyes keeps this user from the step the configuration waits for (passing its review,
 * approving it), in the words the service's refusal uses; undefined when nothing keeps them. The
 * same rule (`fourEyesBar`) over the same steps as `reviewConfiguration`, so that a page hides
 * exactly the buttons the service would refuse.
 */
export async function configurationFourEyes(
  db: Executor,
  tenantId: string,
  configuration: { id: string; status: ConfigurationStatus },
  userId: string,
): Promise<string | undefined> {
  const step = waitingFor[configuration.status];
  if (!step) return undefined;
  const [settings, rows] = await Promise.all([
    getTenantSettings(db, tenantId),
    listSteps(db, tenantId, configuration.id),
  ]);
  const steps = rows.filter((s) => s.user_id !== null);
  const bar = fourEyesBar(
    {
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
    },
    userId,
    step,
  );
  return bar ? fourEyesMessage(bar, step) : undefined;
}
