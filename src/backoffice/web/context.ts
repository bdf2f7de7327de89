import type { FastifyRequest } from 'fastify';
import type { BackofficeUser } from '../../accounts/sessions.js';
import type { AuditEntry } from '../../audit/service.js';
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
     * For a form whose text must survive the end of the session (a draft): the page, for GET,
     * where the form is written. Sent without a session, such a form is answered (after its form
     * check) with the sign-in page carrying its fields, and this page after signing in.
     */
    formPage?: (request: FastifyRequest) => string;
  }
}

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
): Pick<AuditEntry, 'tenantId' | 'actorKind' | 'actor' | 'ip' | 'userAgent'> {
  const user = request.backofficeUser;
  return {
    tenantId,
    actorKind: user?.kind ?? 'anonymous',
    actor: user?.email ?? '',
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  };
}
