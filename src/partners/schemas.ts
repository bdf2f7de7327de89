import { type Static, Type } from 'typebox';

/** A partner's code: a lowercase slug, what a release and a report name it by. */
export const partnerCodePattern = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  purpose: Type.Optional(Type.String({ maxLength: 2000 })),
  /** ISO 3166-1 alpha-2; the service also checks that it names a country. */
  country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  /** The service also checks that it is an https URL. */
  policy_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
};

export const NewPartner = Type.Object(
  { code: Type.String({ pattern: partnerCodePattern }), ...fields },
  { additionalProperties: false },
);
export type NewPartner = Static<typeof NewPartner>;

/** A change of a partner: everything but its code, which releases name it by. */
export const PartnerChanges = Type.Object(fields, { additionalProperties: false });
export type PartnerChanges = Static<typeof PartnerChanges>;
