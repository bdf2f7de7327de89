/**
 * Who acted on a decision (PDPA section 20; docs/pdpa.md): the data subject, or a representative
 * with their own reference, and the basis the client states for it. Part of a decision's
 * evidence when the client sends it: sealed with the record and committed in its leaf.
 */

/** Who may act for a data subject: the holder of parental responsibility, a guardian (of an
 * incompetent person), a curator (of a quasi-incompetent person), or a person authorised. */
export const representativeRoles = ['parent', 'guardian', 'curator', 'authorised'] as const;
export type RepresentativeRole = (typeof representativeRoles)[number];

/** Who acted: the data subject, or one of the representatives. */
export const actorRoles = ['subject', ...representativeRoles] as const;
export type ActorRole = (typeof actorRoles)[number];

/** The subject's age band as the client states it: under 10, 10 to 19, 20 and over. */
export const ageBands = ['under-10', '10-19', 'adult'] as const;
export type AgeBand = (typeof ageBands)[number];

/** The second act of a co-consent: a representative's, or the subject's beside one. */
export interface CoConsent {
  role: ActorRole;
  /** The representative's own reference (their customer id or document number). */
  reference?: string;
  /** When that party acted, when it acted apart (a held act joined later; ISO 8601). */
  at?: string;
}

/** Who acted on a decision, and the basis stated for it. */
export interface ActedBy {
  role: ActorRole;
  /** A representative's own reference; none for the subject. */
  reference?: string;
  age_band?: AgeBand;
  /** A court order's reference (a guardian's or curator's appointment). */
  court_order?: string;
  co_consent?: CoConsent;
}

/** The act with its keys sorted and only those set: how the evidence commitment holds it. */
export function canonicalActedBy(acted: ActedBy): Record<string, unknown> {
  return {
    ...(acted.age_band !== undefined ? { age_band: acted.age_band } : {}),
    ...(acted.co_consent !== undefined
      ? {
          co_consent: {
            ...(acted.co_consent.at !== undefined ? { at: acted.co_consent.at } : {}),
            ...(acted.co_consent.reference !== undefined
              ? { reference: acted.co_consent.reference }
              : {}),
            role: acted.co_consent.role,
          },
        }
      : {}),
    ...(acted.court_order !== undefined ? { court_order: acted.court_order } : {}),
    ...(acted.reference !== undefined ? { reference: acted.reference } : {}),
    role: acted.role,
  };
}

const isRole = (value: unknown): value is ActorRole =>
  typeof value === 'string' && (actorRoles as readonly string[]).includes(value);
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';

/** Whether a value read from a file (a receipt's opening, a sealed record) is an `ActedBy`. */
export function isActedBy(value: unknown): value is ActedBy {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { role, reference, age_band, court_order, co_consent } = value as Record<string, unknown>;
  if (!isRole(role) || !optionalString(reference) || !optionalString(court_order)) return false;
  if (age_band !== undefined && !(ageBands as readonly unknown[]).includes(age_band)) return false;
  if (co_consent === undefined) return true;
  if (typeof co_consent !== 'object' || co_consent === null) return false;
  const co = co_consent as Record<string, unknown>;
  return isRole(co.role) && optionalString(co.reference) && optionalString(co.at);
}
