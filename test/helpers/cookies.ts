/** A tenant's website with a published banner, made through the same services as the command line. */
import {
  createConfiguration,
  createSystem,
  type Editor,
  publishLatestOutsideReview,
} from '../../src/cookies/index.js';
import type { Db } from '../../src/platform/db.js';

export const cliEditor = (tenantId: string): Editor => ({
  tenantId,
  actorKind: 'operator',
  actor: 'command line',
  ip: 'local',
  userAgent: null,
  userId: null,
});

export interface PublishedSystem {
  scope: string;
  configurationId: string;
  version: number;
}

/** A system on `origins` whose first configuration (the categories named) is published. */
export async function seedPublishedSystem(
  db: Db,
  tenantId: string,
  options: { origins?: string[]; categories?: string[]; content?: unknown } = {},
): Promise<PublishedSystem> {
  const by = cliEditor(tenantId);
  return db.transaction().execute(async (trx) => {
    const system = await createSystem(
      trx,
      tenantId,
      {
        name: `site ${Math.random().toString(36).slice(2)}`,
        origins: options.origins ?? ['https://www.bank.example'],
      },
      by,
    );
    await createConfiguration(
      trx,
      tenantId,
      {
        system: system.scope,
        name: 'First banner',
        categories: options.categories ?? [
          'analytics',
          'marketing',
          'functional',
          'personalization',
        ],
        ...(options.content === undefined ? {} : { content: options.content }),
      },
      by,
    );
    const published = await publishLatestOutsideReview(trx, tenantId, system.scope, by);
    return { scope: system.scope, configurationId: published.id, version: published.version };
  });
}
