/** What the cookie pages' tests share: people with roles, forms read as a browser reads them, choices. */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import { addUser } from '../../src/accounts/users.js';
import type { Db } from '../../src/platform/db.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { type PageClient, signedIn, tenantPassword } from './support.js';

/** A user of the tenant with these roles, signed in. */
export async function member(
  app: FastifyInstance,
  db: Db,
  tenant: { id: string; alias: string },
  name: string,
  roles: string[],
): Promise<{ page: PageClient; email: string }> {
  const email = `${name}-${tenant.alias}@example.test`;
  const passwordHash = await hashPassword(tenantPassword, testPasswordHashCost);
  await db
    .transaction()
    .execute((trx) => addUser(trx, tenant.id, { email, name, roles, passwordHash }));
  return { page: await signedIn(app, email), email };
}

type Element = DefaultTreeAdapterTypes.Element;
type Node = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document;

const attr = (node: Element, name: string) => node.attrs.find((a) => a.name === name)?.value;

function textIn(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.map((child) => textIn(child)).join('');
}

/**
 * The fields a browser would send from the page's form with this action, as the page fills them:
 * text fields and text areas with their values, ticked boxes, each select's chosen option.
 */
export function formFields(page: string, action: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let found = false;
  const walk = (node: Node, inForm: boolean) => {
    let inside = inForm;
    if ('tagName' in node) {
      if (node.tagName === 'form') {
        inside = attr(node, 'action') === action;
        found ||= inside;
      }
      const name = attr(node, 'name');
      if (inside && name && name !== '_csrf') {
        if (node.tagName === 'input') {
          const type = attr(node, 'type') ?? 'text';
          if (type !== 'checkbox' || attr(node, 'checked') !== undefined) {
            fields[name] = attr(node, 'value') ?? '';
          }
        } else if (node.tagName === 'textarea') {
          fields[name] = textIn(node).replace(/^\n/, '');
        } else if (node.tagName === 'select') {
          const options = node.childNodes.filter(
            (c): c is Element => 'tagName' in c && c.tagName === 'option',
          );
          const chosen = options.find((o) => attr(o, 'selected') !== undefined) ?? options[0];
          if (chosen) fields[name] = attr(chosen, 'value') ?? '';
        }
      }
    }
    const children = 'childNodes' in node ? node.childNodes : [];
    for (const child of children) walk(child, inside);
    if ('content' in node) walk((node as Element & { content: Node }).content, inside);
  };
  walk(parse(page), false);
  if (!found) throw new Error(`no form posts to ${action}`);
  return fields;
}

/** Every category of the standard banner, each granted or not. */
export const standardChoice = (granted: boolean, more: Record<string, boolean> = {}) => ({
  necessary: true,
  analytics: granted,
  marketing: granted,
  functional: granted,
  personalization: granted,
  ...more,
});

/** Posts a visitor's choice to the public endpoint, from the system's origin; answers its id. */
export async function choose(
  app: FastifyInstance,
  site: { scope: string; configurationId: string; version: number },
  method: 'accept-all' | 'reject-all' | 'custom' | 'gpc',
  categories: Record<string, boolean>,
  options: { visitor?: string; ip?: string; origin?: string } = {},
): Promise<string> {
  const response: LightMyRequestResponse = await app.inject({
    method: 'POST',
    url: `/cookies/v1/${site.scope}/decisions`,
    headers: {
      origin: options.origin ?? 'https://www.bank.example',
      'content-type': 'text/plain;charset=UTF-8',
      'user-agent': 'Browser/1.0',
    },
    remoteAddress: options.ip ?? '203.0.113.77',
    payload: JSON.stringify({
      event_id: randomUUID(),
      visitor_id: options.visitor ?? randomUUID(),
      configuration_id: site.configurationId,
      configuration_version: site.version,
      method,
      categories,
      locale: 'en',
    }),
  });
  if (response.statusCode !== 201) {
    throw new Error(`the choice answered ${response.statusCode}: ${response.body}`);
  }
  return (JSON.parse(response.body) as { data: { decision_id: string } }).data.decision_id;
}
