import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/platform/db.js';
import { PageClient } from './support.js';

/** The id of the user with this e-mail. */
export async function userIdOf(db: Db, email: string): Promise<string> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The path and token of the one-time link in a text (an e-mail, a page). */
export function linkIn(text: string): { path: string; token: string } {
  const match = /https:\/\/consent\.test(\/backoffice\/password\?token=([A-Za-z0-9_-]{43}))/.exec(
    text,
  );
  if (!match?.[1] || !match[2]) throw new Error(`no link in: ${text}`);
  return { path: match[1], token: match[2] };
}

/** Follows the link in the text, as its recipient, and sets the password; the answer's status. */
export async function takeLink(
  app: FastifyInstance,
  text: string,
  password: string,
): Promise<number> {
  const { path, token } = linkIn(text);
  const visitor = new PageClient(app);
  await visitor.get(path);
  const set = await visitor.post('/backoffice/password', {
    token,
    new_password: password,
    confirm_password: password,
  });
  return set.statusCode;
}

/** Every built-in role's view permission but the exports' (which has no view). */
const viewAll = [
  'templates:view',
  'partners:view',
  'customers:view',
  'block_channels:view',
  'requests:view',
  'api_keys:view',
  'users:view',
  'roles:view',
  'audit_log:view',
  'decision_log:view',
  'settings:view',
  'webhooks:view',
  'cookies:view',
];

/** The built-in roles' permissions, as docs/team.md's role table lists them. */
export const builtIn: Record<string, readonly string[]> = {
  admin: [
    ...viewAll,
    'templates:create',
    'templates:delete',
    'versions:create',
    'versions:edit',
    'versions:review',
    'versions:approve',
    'partners:create',
    'partners:edit',
    'partners:delete',
    'customers:erase',
    'consent_decisions:edit',
    'block_channels:edit',
    'requests:edit',
    'requests:approve',
    'exports:export',
    'api_keys:create',
    'api_keys:delete',
    'users:create',
    'users:edit',
    'users:delete',
    'roles:edit',
    'audit_log:export',
    'decision_log:review',
    'settings:edit',
    'webhooks:edit',
    'cookies:create',
    'cookies:edit',
    'cookies:delete',
    'cookies:review',
    'cookies:approve',
    'cookies:export',
  ],
  editor: [
    'templates:view',
    'templates:create',
    'versions:create',
    'versions:edit',
    'partners:view',
    'partners:create',
    'partners:edit',
    'cookies:view',
    'cookies:create',
    'cookies:edit',
  ],
  reviewer: [
    'templates:view',
    'versions:review',
    'partners:view',
    'cookies:view',
    'cookies:review',
  ],
  approver: [
    'templates:view',
    'versions:approve',
    'partners:view',
    'cookies:view',
    'cookies:approve',
  ],
  customer_service: [
    'customers:view',
    'consent_decisions:edit',
    'block_channels:view',
    'block_channels:edit',
    'requests:view',
    'requests:edit',
  ],
  auditor: [
    ...viewAll,
    'exports:export',
    'audit_log:export',
    'decision_log:review',
    'cookies:export',
  ],
};
