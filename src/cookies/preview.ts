import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { bannerScript } from './banner-script.js';
import { getConfiguration } from './configurations.js';
import { bannerConfig } from './content.js';

/**
 * The banner script that previews a configuration of the tenant in the back-office, in any
 * status (a draft's author sees what they write, a reviewer what they pass): the published
 * bundle with this configuration's content, marked `preview`, so that it keeps no cookie and
 * records no choice, with nowhere to record to either. `404 1004` for a configuration of
 * another tenant, or a locale it has no texts in.
 */
export async function previewScript(
  db: Executor,
  tenantId: string,
  id: string,
  locale: string,
): Promise<string> {
  const configuration = await getConfiguration(db, tenantId, id);
  if (!Object.hasOwn(configuration.content.texts, locale)) throw new AppError('notFound');
  const config = bannerConfig(configuration.content, {
    scope: configuration.system,
    decisions_url: '',
    configuration: {
      id: configuration.id,
      version: configuration.version,
      fingerprint: configuration.fingerprint,
    },
    gpc: false,
  });
  return bannerScript({ ...config, preview: true });
}
