import { type Static, Type } from 'typebox';

export const NewApiKey = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export type NewApiKey = Static<typeof NewApiKey>;

/** What creation returns: the only moment the whole key is visible. */
export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  key: string;
}

export interface RevokedApiKey {
  id: string;
  revoked_at: string;
}

/** Who is calling, once the key checked out. */
export interface ApiCaller {
  tenantId: string;
  apiKeyId: string;
}

/** A key as its tenant's list shows it: never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  /** Null for keys made before it was kept. */
  last_four: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
