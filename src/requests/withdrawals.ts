/**
 * What a withdrawal or objection request done records (PDPA sections 19 and 32;
 * docs/requests.md, "What done does"): a `withdraw` decision on every template whose latest
 * decision of the customer's is a `given`, through the decisions' own rules and writer, as the
 * API records one, under the API key that vouched for the request.
 */
import { type DecisionContext, type DecisionWriter, decide } from '../decisions/index.js';
import type { Db } from '../platform/db.js';
import { customerStandings } from '../records/index.js';
import type { SubjectVault } from '../subjects/index.js';
import type { Catalog } from '../templates/index.js';

/** The decisions' writer and catalogue, as the API's routes have them. */
export interface DecisionPath {
  writer: DecisionWriter;
  catalog: Catalog;
}

/** Withdraws every consent the customer has in force; answers the templates withdrawn from. */
export async function withdrawAll(
  db: Db,
  vault: SubjectVault,
  decisions: DecisionPath,
  context: DecisionContext,
  customerId: string,
  requestId: string,
): Promise<string[]> {
  const withdrawn: string[] = [];
  const standings = await customerStandings(db, vault, context.tenantId, customerId);
  for (const standing of standings) {
    if (standing.last_decision !== 'given') continue;
    const outcome = await decide(
      decisions.writer,
      decisions.catalog,
      vault,
      context,
      customerId,
      { consent_version_id: standing.last_consent_version_id, decision: 'withdraw' },
      // A retry of the same request's answer withdraws nothing twice.
      `request:${requestId}:${standing.template_code}`,
    );
    if ('kind' in outcome && outcome.kind === 'recorded') withdrawn.push(standing.template_code);
  }
  return withdrawn;
}
