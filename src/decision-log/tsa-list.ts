import { readFileSync } from 'node:fs';
import type { TimestampSettings } from '../platform/config.js';
import { pemCertificates } from '../proof/index.js';

/** The authorities checkpoints are time-stamped by, and the roots their tokens must chain to. */
export interface TsaPolicy {
  readonly urls: readonly string[];
  /** PEM certificates, one string each. */
  readonly roots: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

export const noTimestamps: TsaPolicy = { urls: [], roots: [], intervalMs: 0, timeoutMs: 0 };

export class TsaSettingsError extends Error {}

/**
 * `LOG_TSA_URLS` and `LOG_TSA_CA_FILE`, read once: with authorities listed, the roots are
 * required (a token that cannot be checked is never kept), and a file with no certificate in
 * it stops the start.
 */
export function loadTsaPolicy(settings: TimestampSettings): TsaPolicy {
  if (settings.urls.length === 0) return noTimestamps;
  if (settings.caFile === undefined) {
    throw new TsaSettingsError(
      'LOG_TSA_URLS is set without LOG_TSA_CA_FILE: the roots its tokens are checked against',
    );
  }
  let text: string;
  try {
    text = readFileSync(settings.caFile, 'utf8');
  } catch (error) {
    throw new TsaSettingsError(
      `LOG_TSA_CA_FILE ${settings.caFile} cannot be read: ${(error as Error).message}`,
    );
  }
  const roots = pemCertificates(text);
  if (roots.length === 0) {
    throw new TsaSettingsError(`LOG_TSA_CA_FILE ${settings.caFile} holds no PEM certificate`);
  }
  return {
    urls: settings.urls,
    roots,
    intervalMs: settings.intervalMs,
    timeoutMs: settings.timeoutMs,
  };
}
