import type { Executor } from '../platform/db.js';
import { fourEyesBar, fourEyesMessage, type GuardedStep } from '../templates/index.js';
import { reviewHistory } from './configurations.js';
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
  const bar = fourEyesBar(await reviewHistory(db, tenantId, configuration), userId, step);
  return bar ? fourEyesMessage(bar, step, 'configuration') : undefined;
}
