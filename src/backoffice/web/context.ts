import type { FastifyRequest } from 'fastify';
import type { BackofficeUser, Permission } from '../../accounts/index.js';
import type { AuditEntry } from '../../audit-trail/index.js';
import { AppError } from '../../platform/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is signed in to the back-office on this request, if anyone. */
    backofficeUser: BackofficeUser | null;
    /** The session cookie's value when `backofficeUser` is set: what flashes are sealed under. */
    backofficeSessionToken: string | null;
  }
  interface FastifyContextConfig {
    /**
     * Who may use the route, checked on the server before anything else runs: a permission a
     * tenant user's roles must grant, or `member` (any tenant user: their own dashboard),
     * `operator` (the service's operators), `self` (any signed-in account: their own account's
     * pages), `public` (anyone: signing in, taking a one-time link, the assets). Every
     * back-office route declares one; a route without is refused (and fails a test).
     */
    permission?: RouteAccess;
    /**
     * For a form whose text must survive the end of the session (a draft): the page, for GET,
     * where the form is written. Sent without a session, such a form is answered (after its form
     * check) with the sign-in page carrying its fields, and this page after signing in.
     */
    formPage?: (request: FastifyRequest) => string;
  }
}

export type RouteAccess = Permission | 'member' | 'operator' | 'self' | 'public';

export type TenantUser = Extract<BackofficeUser, { kind: 'tenant' }>;
export type OperatorUser = Extract<BackofficeUser, { kind: 'operator' }>;

/** The signed-in tenant user (the tenant pages' hook has already made sure there is one). */
export function tenantOf(request: FastifyRequest): TenantUser {
  const user = request.backofficeUser;
  if (user?.kind !== 'tenant') {
    throw new AppError('forbidden', { message: 'This page is for tenants.' });
  }
  return user;
}

export function signedInUser(request: FastifyRequest): BackofficeUser {
  const user = request.backofficeUser;
  if (!user) throw new AppError('unauthorized', { message: 'Sign in to see this page.' });
  return user;
}

/** The signed-in session's cookie value (the pages' hook has already made sure there is one). */
export function sessionTokenOf(request: FastifyRequest): string {
  const token = request.backofficeSessionToken;
  if (!token) throw new AppError('unauthorized', { message: 'Sign in to see this page.' });
  return token;
}

/** The audit entry's who and where for this request; the caller adds what happened. */
export function auditBy(
  request: FastifyRequest,
  tenantId: string | null = request.backofficeUser?.kind === 'tenant'
    ? request.backofficeUser.tenantId
    : null,
): Pick<AuditEntry, 'tenantId' | 'actorKind' | 'actor' | 'actorName' | 'ip' | 'userAgent'> {
  const user = request.backofficeUser;
  return {
    tenantId,
    actorKind: user?.kind ?? 'anonymous',
    actor: user?.email ?? '',
    actorName: user?.name || null,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  };
}

/** Whether the signed-in user may use what `access` guards (the navigation asks this too). */
export function allows(user: BackofficeUser | null | undefined, access: RouteAccess): boolean {
  if (access === 'public') return true;
  if (!user) return false;
  if (access === 'self') return true;
  if (access === 'operator') return user.kind === 'operator';
  if (user.kind !== 'tenant') return false;
  return access === 'member' || user.permissions.has(access);
}

/** The zone the signed-in user reads dates in: their tenant's setting; UTC for the operator. */
export function zoneOf(request: FastifyRequest): string {
  const user = request.backofficeUser;
  return user?.kind === 'tenant' ? user.timeZone : 'UTC';
}
