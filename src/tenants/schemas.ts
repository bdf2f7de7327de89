import { type Static, Type } from 'typebox';

export const NewTenant = Type.Object(
  {
    alias: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' }),
    email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
    password: Type.String({ minLength: 10, maxLength: 256 }),
  },
  { additionalProperties: false },
);
export type NewTenant = Static<typeof NewTenant>;

export interface TenantView {
  id: string;
  alias: string;
  email: string;
}
