import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import { cookieChoices } from '../cookies/index.js';
import { decisions } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { answer, apiKeySecurity } from '../platform/http-schemas.js';
import type { ReadOn } from '../platform/replicas.js';
import type { Registry } from '../record-kinds/index.js';
import type { SealedRecord, SubjectVault } from '../subjects/index.js';
import { CookieIso27560Receipt, CookieKantaraReceipt } from './cookie-export-schemas.js';
import { cookieIso27560Receipt, cookieKantaraReceipt } from './cookie-exports.js';
import { Iso27560Receipt, isoAnswer, KantaraReceipt } from './export-schemas.js';
import { cookieExportSource, exportSource } from './export-sources.js';
import { iso27560Receipt, kantaraReceipt } from './exports.js';
import { awaitReceipt, type ReceiptKind } from './receipts.js';
import {
  receiptErrors,
  receiptPending,
  receiptRequest,
  receiptWaitDescription,
  sendQueued,
} from './routes.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** What an export is made of; undefined while the record's leaf waits to be appended. */
type SourceOf<S> = (tenantId: string, id: string, wait: boolean) => Promise<S | undefined>;

/**
 * A receipt export: the same key check, scoping, errors and `202`/`?wait=true` as the receipt
 * itself, then the document `render` makes, as JSON-LD or as JSON.
 */
function exportRoute<S>(
  app: App,
  route: {
    url: string;
    operationId: string;
    summary: string;
    description: string;
    ok: TSchema;
    jsonLd: boolean;
    source: SourceOf<S>;
    render: (source: S) => unknown;
  },
) {
  app.get(
    route.url,
    {
      schema: {
        tags: ['log'],
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        security: apiKeySecurity,
        ...receiptRequest,
        response: { 200: route.ok, 202: receiptPending, ...receiptErrors },
      },
    },
    async (request, reply) => {
      const id = request.params.decision_id;
      reply.header('cache-control', 'no-store');
      const source = await route.source(
        callerOf(request).tenantId,
        id,
        request.query.wait === 'true',
      );
      if (!source) return sendQueued(reply, id);
      if (route.jsonLd) reply.type('application/ld+json');
      return reply.send(route.render(source));
    },
  );
}

/**
 * A decision's receipt, and a cookie decision's, as an ISO/IEC TS 27560 receipt (DPV JSON-LD)
 * and as a Kantara Consent Receipt v1.1.
 */
export const exportRoutes: FastifyPluginAsyncTypebox<{
  /** Nothing an export reads is written by it: a replica caught up with the primary may answer. */
  readOn: ReadOn;
  /** Runs an integration pass now (see integrator.ts). */
  kick: () => Promise<void>;
  publicBaseUrl: string;
  vault: SubjectVault;
  registry: Registry;
}> = async (app, { readOn, kick, publicBaseUrl, vault, registry }) => {
  /** A kind's receipt, waited for, and what its exports are made of once it is ready. */
  const sourceOf =
    <R, S>(
      kind: ReceiptKind<SealedRecord>,
      build: (db: Db, tenantId: string, receipt: R, publicBaseUrl: string) => Promise<S>,
    ): SourceOf<S> =>
    (tenantId, id, wait) =>
      readOn(async (db) => {
        const result = await awaitReceipt(db, vault, registry, kick, kind, tenantId, id, wait);
        return result.ready ? build(db, tenantId, result.receipt as R, publicBaseUrl) : undefined;
      });
  const decisionSource = sourceOf(decisions, exportSource);
  const cookieSource = sourceOf(cookieChoices, cookieExportSource);

  exportRoute(app, {
    url: '/api/v1/decisions/:decision_id/receipt/iso-27560',
    operationId: 'getReceiptIso27560',
    summary: "A decision's receipt as ISO/IEC TS 27560 (W3C DPV JSON-LD)",
    description: receiptWaitDescription,
    ok: isoAnswer(
      'The consent receipt, wrapping the consent record and the log proof',
      Iso27560Receipt,
    ),
    jsonLd: true,
    source: decisionSource,
    render: iso27560Receipt,
  });
  exportRoute(app, {
    url: '/api/v1/decisions/:decision_id/receipt/kantara',
    operationId: 'getReceiptKantara',
    summary: "A decision's receipt as a Kantara Consent Receipt v1.1",
    description: receiptWaitDescription,
    ok: answer(KantaraReceipt, 'The Kantara consent receipt.'),
    jsonLd: false,
    source: decisionSource,
    render: kantaraReceipt,
  });
  exportRoute(app, {
    url: '/api/v1/cookie-decisions/:decision_id/receipt/iso-27560',
    operationId: 'getCookieDecisionReceiptIso27560',
    summary: "A website visitor's cookie decision's receipt as ISO/IEC TS 27560 (W3C DPV JSON-LD)",
    description: `One process per category of the banner, each granted or refused. ${receiptWaitDescription}`,
    ok: isoAnswer(
      'The consent receipt, wrapping the cookie decision and the log proof',
      CookieIso27560Receipt,
    ),
    jsonLd: true,
    source: cookieSource,
    render: cookieIso27560Receipt,
  });
  exportRoute(app, {
    url: '/api/v1/cookie-decisions/:decision_id/receipt/kantara',
    operationId: 'getCookieDecisionReceiptKantara',
    summary: "A website visitor's cookie decision's receipt as a Kantara Consent Receipt v1.1",
    description: `One purpose per category of the banner; which were granted is in \`collectionMethod\` and \`consentLog\`. ${receiptWaitDescription}`,
    ok: answer(CookieKantaraReceipt, 'The Kantara consent receipt.'),
    jsonLd: false,
    source: cookieSource,
    render: cookieKantaraReceipt,
  });
};
