import { type Static, Type } from 'typebox';

/** What making a token takes: a name that says which provider, or which connection, uses it. */
export const NewScimToken = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export type NewScimToken = Static<typeof NewScimToken>;

/** A token as the tenant's list shows it: never the token itself. */
export interface ScimTokenView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What making a token answers: the only moment the whole token exists outside the provider. */
export interface CreatedScimToken {
  id: string;
  name: string;
  prefix: string;
  token: string;
}

/** Who calls `/scim/v2`, once their token checked out. */
export interface ScimCaller {
  tenantId: string;
  tokenId: string;
  prefix: string;
  name: string;
}
