/**
 * What a tenant's user may do in the back-office: `area:action` codes, in the manner of
 * Consentrix's `consent_templates:review`. Only pairs that guard something exist; each is named
 * by a back-office route (`config.permission`) and checked on the server for every request.
 */
export const permissionCatalogue = {
  'templates:view': 'See templates, their versions and their history',
  'templates:create': 'Create templates',
  'templates:delete': 'Archive templates, or delete those never published',
  'versions:create': 'Write new drafts',
  'versions:edit': 'Edit drafts and submit them for review',
  'versions:review': 'Review submitted versions: pass them on, or send them back',
  'versions:approve': 'Approve or reject reviewed versions (approval publishes)',
  'partners:view':
    'See the partners customer data may be shared with, and which versions list them',
  'partners:create': 'Add partners',
  'partners:edit': "Change partners' names, purposes, countries and policy links",
  'partners:delete': 'Delete partners no version lists',
  'customers:view': "Look up a customer's record",
  'customers:erase': "Erase a customer's or a website visitor's personal data",
  'consent_decisions:edit': "Block or allow a partner on a customer's decision",
  'block_channels:view': "See a customer's contact channels, blocked or allowed, on their page",
  'block_channels:edit':
    "Block and allow a customer's contact channels, and add the tenant's own channels",
  'requests:view':
    "See data-subject requests: the queue by days left, each request's steps and notes",
  'requests:edit':
    'Open requests for a customer, check their identity, start work, assign them and add notes',
  'requests:approve': 'Extend, complete or refuse data-subject requests',
  'exports:export': 'Download decision records',
  'api_keys:view': 'See API keys',
  'api_keys:create': 'Create API keys',
  'api_keys:delete': 'Revoke API keys',
  'users:view': 'See the team',
  'users:create': 'Invite users',
  'users:edit': "Change users' names and roles, disable and enable them, send password links",
  'users:delete': 'Remove users',
  'roles:view': 'See roles and their permissions',
  'roles:edit': 'Create, change and delete custom roles',
  'audit_log:view': 'Read the audit log',
  'audit_log:export': 'Download the audit log',
  'decision_log:view': 'See the decision log and its checkpoints',
  'decision_log:review': 'Run the decision-log audit',
  'settings:view': "See the tenant's settings",
  'settings:edit': "Change the tenant's settings",
  'webhooks:view': 'See webhook endpoints and their deliveries',
  'webhooks:edit':
    'Add, disable, enable, replay and delete webhook endpoints; send deliveries again',
  'cookies:view': "See cookie systems, banner configurations, their history and visitors' choices",
  'cookies:create': 'Add cookie systems and new banner configurations',
  'cookies:edit':
    'Change systems and draft configurations, submit them for review, publish and unpublish them',
  'cookies:delete': 'Delete draft banner configurations',
  'cookies:review': 'Review submitted banner configurations: pass them on, or send them back',
  'cookies:approve': 'Approve or reject reviewed banner configurations (approval may publish)',
  'cookies:export': "Download visitors' cookie choices",
} as const;

export type Permission = keyof typeof permissionCatalogue;

export const allPermissions = Object.keys(permissionCatalogue) as Permission[];

const permissionSet: ReadonlySet<string> = new Set(allPermissions);

export function isPermission(code: string): code is Permission {
  return permissionSet.has(code);
}

/** The areas of the permission matrix, in the order the pages show them. */
export const areas = [
  ['templates', 'Templates'],
  ['versions', 'Versions'],
  ['partners', 'Partners'],
  ['customers', 'Customers'],
  ['consent_decisions', 'Decisions'],
  ['block_channels', 'Channel blocks'],
  ['requests', 'Data-subject requests'],
  ['exports', 'Exports'],
  ['api_keys', 'API keys'],
  ['users', 'Users'],
  ['roles', 'Roles'],
  ['audit_log', 'Audit log'],
  ['decision_log', 'Decision log'],
  ['settings', 'Settings'],
  ['webhooks', 'Webhooks'],
  ['cookies', 'Cookies'],
] as const;

/** The actions of the matrix, as columns. */
export const actions = [
  'view',
  'create',
  'edit',
  'delete',
  'review',
  'approve',
  'erase',
  'export',
] as const;
