/**
 * The cookie scanner's webhook event, as an entry of the registry of kinds with events alone: a
 * scan is no customer's record and has no leaf.
 */
import { Type } from 'typebox';
import { EventDateTime, type RecordKind } from '../record-kinds/index.js';

const Named = Type.Object({ name: Type.String(), domain: Type.String() });

const ScanFlaggedData = Type.Object(
  {
    scan_id: Type.String({ format: 'uuid' }),
    system: Type.String({ description: "The system's scope (`cs_…`)." }),
    trigger: Type.String({ description: '`command-line`, `back-office` or `schedule`.' }),
    started_at: EventDateTime,
    finished_at: EventDateTime,
    violations_count: Type.Integer({ minimum: 0 }),
    violations: Type.Array(
      Type.Object({
        kind: Type.String({ description: '`cookie` or `request`.' }),
        name: Type.Optional(Type.String()),
        domain: Type.Optional(Type.String()),
        host: Type.Optional(Type.String()),
        page: Type.String(),
        phase: Type.String({ description: '`before-choice` or `reject-all`.' }),
        category: Type.String(),
        cause: Type.Union([Type.String(), Type.Null()]),
      }),
      { description: 'The first 50 violations (docs/cookie-scans.md).', maxItems: 50 },
    ),
    new_cookies: Type.Array(Named, { description: 'Cookies new since the scan before.' }),
    new_hosts: Type.Array(Type.String(), { description: 'Hosts new since the scan before.' }),
  },
  { description: 'A scan that found a violation, or a cookie or host new since the scan before.' },
);

export const cookieScanEvents = {
  name: 'cookie-scan',
  events: {
    types: {
      'cookie_scan.flagged': {
        summary: 'A cookie scan found a violation, or a cookie or host new since the scan before',
        data: ScanFlaggedData,
      },
    },
  },
} satisfies RecordKind;
