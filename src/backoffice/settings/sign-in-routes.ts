import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changeSignInRules,
  listRoles,
  type SignInRequirement,
  signInRules,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { getTenantSettings } from '../../tenants/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { requirementChoices, ruleField, signInRulesPage } from './sign-in-views.js';

const notices: Record<string, string> = { saved: 'Sign-in requirements saved.' };
const requirements = new Set<string>(requirementChoices.map(([value]) => value));

/** What signing in requires of each role's holders (`/settings/sign-in`). */
export async function signInRuleRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('settings', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    rules?: ReadonlyMap<string, SignInRequirement>,
    errors: string[] = [],
  ) => {
    const user = tenantOf(request);
    const body = signInRulesPage({
      csrfToken: csrfToken(reply),
      roles: await listRoles(db, user.tenantId),
      rules: rules ?? (await signInRules(db, user.tenantId)),
      twoFactorRequired: (await getTenantSettings(db, user.tenantId)).twoFactorRequired,
      mayEdit: user.permissions.has('settings:edit'),
      errors,
    });
    return page(request, reply, 'Sign-in requirements', body, errors.length > 0 ? 400 : 200);
  };

  app.get('/settings/sign-in', { config: { permission: 'settings:view' } }, (request, reply) =>
    show(request, reply),
  );

  app.post(
    '/settings/sign-in',
    { config: { permission: 'settings:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const next = new Map<string, SignInRequirement | null>();
      const invalid: string[] = [];
      for (const role of await listRoles(db, tenantId)) {
        const chosen = queryOf(request.body, ruleField(role.id));
        if (!requirements.has(chosen))
          invalid.push(`Choose what signing in as ${role.name} requires.`);
        else next.set(role.id, (chosen || null) as SignInRequirement | null);
      }
      if (invalid.length > 0) {
        const shown = new Map(
          [...next].filter((entry): entry is [string, SignInRequirement] => entry[1] !== null),
        );
        return show(request, reply, shown, invalid);
      }
      await db
        .transaction()
        .execute((trx) => changeSignInRules(trx, auditBy(request), tenantId, next));
      return redirectTo(reply, '/settings/sign-in?notice=saved');
    },
  );
}
