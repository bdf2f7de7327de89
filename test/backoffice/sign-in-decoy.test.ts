import type * as Crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { PageClient, startBackofficeApp } from './support.js';

/** The parameters of every scrypt derivation the service runs, in order. */
const derivations = vi.hoisted(() => [] as Array<{ N: unknown; r: unknown; p: unknown }>);

// node:crypto as it is, with each scrypt call's parameters noted on the way through.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof Crypto>();
  const scrypt = (...args: unknown[]) => {
    const options = (args.length === 5 ? args[3] : {}) as Crypto.ScryptOptions;
    derivations.push({ N: options.N, r: options.r, p: options.p });
    return (actual.scrypt as (...a: unknown[]) => void)(...args);
  };
  return { ...actual, scrypt, default: { ...actual, scrypt } };
});

/**
 * The answer to a wrong password must not tell whether the e-mail has an account: the time it
 * takes is the one scrypt derivation it runs, so an unknown e-mail must run the same derivation,
 * with the same parameters, as a known one (against a decoy hash).
 */
describe.each(stores)('the work a wrong password costs on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(store, {
      SIGN_IN_FAILURES_PER_ACCOUNT: '0',
      SIGN_IN_FAILURES_PER_ADDRESS: '0',
    });
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Signs in and returns the answer's status and the derivations it ran. */
  async function derivationsOfSignIn(email: string, password: string) {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    derivations.length = 0;
    const response = await client.post('/backoffice/sign-in', { email, password });
    return { status: response.statusCode, ran: [...derivations] };
  }

  /** N, r and p of the tenant's first user's stored hash (`scrypt$N$r$p$salt$hash`). */
  async function storedParameters() {
    const row = await t.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', a.tenant.email)
      .executeTakeFirstOrThrow();
    const [, n, r, p] = (row.password_hash ?? '').split('$');
    return { N: Number(n), r: Number(r), p: Number(p) };
  }

  it("a wrong password for a tenant's e-mail runs one scrypt derivation with the stored hash's parameters", async () => {
    const known = await derivationsOfSignIn(a.tenant.email, 'not the password');
    expect(known.status).toBe(401);
    expect(known.ran).toEqual([await storedParameters()]);
  });

  it('a password for an unknown e-mail runs the same one derivation as for a known e-mail', async () => {
    const unknown = await derivationsOfSignIn('nobody@example.test', 'not the password');
    expect(unknown.status).toBe(401);
    expect(unknown.ran).toEqual([await storedParameters()]);
  });

  it('a form with the e-mail left empty is no sign-in attempt: it runs no derivation, so time tells nothing', async () => {
    const empty = await derivationsOfSignIn('', 'not the password');
    expect(empty.status).toBe(400);
    expect(empty.ran).toEqual([]);
  });
});
