/**
 * The registry of the kinds of record the service keeps: the one line per kind that the write
 * path, the log's audit, receipts, evidence packs, webhooks and erasure loop over
 * (src/record-kinds). The order is that of the webhook event types in the OpenAPI document and
 * the back-office, and of the receipt routes.
 */
import { channelChanges } from '../channels/index.js';
import { cookieScanEvents } from '../cookie-scanner/index.js';
import { cookieChoices } from '../cookies/index.js';
import { decisions } from '../decisions/index.js';
import { tombstones } from '../erasure/index.js';
import { partnerBlocks } from '../partner-blocks/index.js';
import { preferenceCodes } from '../preference-centre/index.js';
import { publications } from '../publications/index.js';
import { defineRegistry } from '../record-kinds/index.js';
import { requestStepsKind } from '../requests/index.js';
import { versionEvents } from '../templates/index.js';

export const registry = defineRegistry(import.meta.url, [
  decisions,
  versionEvents,
  tombstones,
  cookieChoices,
  channelChanges.kind,
  partnerBlocks.kind,
  preferenceCodes,
  publications,
  requestStepsKind,
  cookieScanEvents,
]);
