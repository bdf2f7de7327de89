import { type Static, Type } from 'typebox';

/** A sign-in password: tenants' and the operator's. */
export const Password = Type.String({ minLength: 10, maxLength: 256 });

export const NewTenant = Type.Object(
  {
    alias: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }),
    email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
    password: Password,
  },
  { additionalProperties: false },
);
export type NewTenant = Static<typeof NewTenant>;

export interface TenantView {
  id: string;
  alias: string;
  email: string;
}

/** A tenant as the operator's list shows it. */
export interface TenantSummary extends TenantView {
  created_at: string;
  disabled_at: string | null;
}
