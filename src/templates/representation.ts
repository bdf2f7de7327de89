import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { type ActedBy, ageBands } from '../proof/index.js';
import { setTemplateRepresentation } from './lifecycle-repository.js';
import { lockPublishes } from './service.js';
import type { TemplateRow } from './table.js';

/**
 * Who may decide for whom on a template (PDPA section 20; docs/pdpa.md): for each basis a
 * decision states (the subject's age band, or a court order), who must act. A basis the rule
 * does not name is decided by whoever the client says acted.
 */
export const representationBases = [...ageBands, 'court-order'] as const;
export type RepresentationBasis = (typeof representationBases)[number];

/**
 * Who must act: the subject; a representative (parent, guardian, curator, authorised
 * person); the subject with a representative's co-consent (both acts in the decision); anyone.
 */
export const whoActs = [
  'subject',
  'representative',
  'subject-with-representative',
  'anyone',
] as const;
export type WhoActs = (typeof whoActs)[number];

export type RepresentationRule = Partial<Record<RepresentationBasis, WhoActs>>;

const described: Record<WhoActs, string> = {
  subject: 'the subject decides',
  representative: 'a representative decides',
  'subject-with-representative': "the subject decides with a representative's co-consent",
  anyone: 'the subject or a representative decides',
};

/** A template's rule as stored: undefined when it has none. */
export function representationOf(
  template: Pick<TemplateRow, 'representation'>,
): RepresentationRule | undefined {
  return template.representation
    ? (JSON.parse(template.representation) as RepresentationRule)
    : undefined;
}

/** The rule as the command line and the back-office write it: `under-10=representative,…`. */
export function formatRepresentation(rule: RepresentationRule | undefined): string {
  if (!rule) return 'none';
  return representationBases
    .filter((basis) => rule[basis] !== undefined)
    .map((basis) => `${basis}=${rule[basis]}`)
    .join(',');
}

/**
 * Reads `under-10=representative,10-19=subject-with-representative` (`none`: no rule);
 * `400 1001` naming `representation` for an unknown basis or value, or a basis named twice.
 */
export function parseRepresentation(text: string): RepresentationRule | undefined {
  const trimmed = text.trim();
  if (trimmed === 'none' || trimmed === '') return undefined;
  const rule: RepresentationRule = {};
  for (const part of trimmed.split(',')) {
    const [basis, who, extra] = part.split('=').map((s) => s.trim());
    const known =
      (representationBases as readonly string[]).includes(basis ?? '') &&
      (whoActs as readonly string[]).includes(who ?? '') &&
      extra === undefined;
    if (!known || rule[basis as RepresentationBasis] !== undefined) {
      throw new AppError('invalidRequest', {
        details: [
          {
            field: 'representation',
            issue: known
              ? `${basis} is named twice`
              : `"${part}": expected BASIS=WHO, BASIS one of ${representationBases.join(', ')}, WHO one of ${whoActs.join(', ')}`,
          },
        ],
      });
    }
    rule[basis as RepresentationBasis] = who as WhoActs;
  }
  return rule;
}

/**
 * Sets who may decide for whom on a template (undefined: no rule), and records who did
 * (`template.changed`, from and to). Decisions follow it from the moment `latest` sees it.
 */
export async function changeRepresentationAs(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  rule: RepresentationRule | undefined,
): Promise<TemplateRow> {
  await lockPublishes(trx, template.tenant_id, template.id);
  const before = formatRepresentation(representationOf(template));
  const after = formatRepresentation(rule);
  if (before === after) return template;
  const stored = rule ? JSON.stringify(parseRepresentation(after)) : null;
  await setTemplateRepresentation(trx, template.tenant_id, template.id, stored);
  await recordAudit(trx, {
    ...actor,
    action: 'template.changed',
    target: template.code,
    details: { representation: { from: before, to: after } },
  });
  return { ...template, representation: stored };
}

/** The side of a co-consent: the subject, or a representative. */
export type Side = 'subject' | 'representative';

/**
 * What the template's rule says of a decision: undefined when it may be recorded as it is;
 * `refused` (the refusal's words) when it breaks the rule; `missing` when it is one act of a
 * co-consent the rule asks for, the other side's still to come (a `given` from the subject alone,
 * or from a representative alone, where the rule names both). A `reject` or `withdraw` under a
 * co-consent rule may come from either party (declining or taking consent back needs no
 * co-consent).
 */
export type RepresentationVerdict = { refused: string } | { missing: Side } | undefined;

export function representationVerdict(
  rule: RepresentationRule | undefined,
  decision: 'given' | 'reject' | 'withdraw',
  acted: ActedBy | undefined,
): RepresentationVerdict {
  if (!rule) return undefined;
  if (!acted) {
    return {
      refused:
        "This template's rule needs acted_by: who acted, and the subject's age band or a court order.",
    };
  }
  const basis: RepresentationBasis | undefined =
    acted.court_order !== undefined ? 'court-order' : acted.age_band;
  const who = basis === undefined ? undefined : rule[basis];
  if (basis === undefined || who === undefined || who === 'anyone') return undefined;
  const refused = { refused: `Refused by this template's rule for ${basis}: ${described[who]}.` };
  if (who === 'subject') return acted.role === 'subject' ? undefined : refused;
  if (who === 'representative') return acted.role !== 'subject' ? undefined : refused;
  if (decision !== 'given' || acted.co_consent !== undefined) return undefined;
  return { missing: acted.role === 'subject' ? 'representative' : 'subject' };
}
