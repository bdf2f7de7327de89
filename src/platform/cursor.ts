import { AppError } from './errors.js';
import { uuidPattern } from './ids.js';
import { decisionTimeBound } from './time.js';

/** Where a page ordered by (time, id) ended: the next page starts strictly past it. */
export interface KeysetPosition {
  decidedAt: string;
  id: string;
}

const storedTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const recordId = new RegExp(uuidPattern);

/**
 * A time a record can have, in the form of `nowIso`: a real instant (no 13th month), from the
 * year 1 on (`decisionTimeBound`), which a store that keeps times as `timestamptz` compares too.
 */
function isDecisionTime(time: string): boolean {
  if (!storedTime.test(time) || decisionTimeBound(time) !== time) return false;
  const ms = Date.parse(time);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === time;
}

/**
 * The `next_cursor` of an API page: it names the last record of the page; it is opaque to
 * clients, not secret. Every paged list of the API makes it here, so each reads the others'.
 */
export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(JSON.stringify([position.decidedAt, position.id])).toString('base64url');
}

/** `400 1001` naming `querystring.cursor` for anything `encodeCursor` did not make, byte for byte. */
export function decodeCursor(cursor: string): KeysetPosition {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 2) {
    const [decidedAt, id] = value as unknown[];
    if (
      typeof decidedAt === 'string' &&
      isDecisionTime(decidedAt) &&
      typeof id === 'string' &&
      recordId.test(id)
    ) {
      const position = { decidedAt, id };
      if (encodeCursor(position) === cursor) return position;
    }
  }
  throw new AppError('invalidRequest', {
    details: [{ field: 'querystring.cursor', issue: 'is not a cursor this endpoint gave' }],
  });
}
