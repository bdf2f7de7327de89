/**
 * The direction of dependencies: platform <- features <- back-office, command line, HTTP.
 * `npm run lint:deps` checks src/ against it. Type-only imports count everywhere except in the
 * cycle check (`import type` is erased at build time, so it makes no cycle at run time).
 */

// The HTTP and UI edges: routes files, the back-office, the command line and the entry points.
const routesFile = 'routes\\.ts$';
const edge = `^src/(backoffice/|preference-page/|cli/|app/|write-path/)|${routesFile}`;
// The feature folders: each has one door, its index.ts (the back-office, the command line and the
// platform are not features).
const features = [
  'accounts',
  'api-keys',
  'audit-trail',
  'channels',
  'cookie-database',
  'cookie-scanner',
  'cookies',
  'decision-log',
  'decisions',
  'erasure',
  'evidence',
  'health',
  'journal',
  'metrics',
  'partner-blocks',
  'partners',
  'preference-centre',
  'processing-record',
  'products',
  'proof',
  'publications',
  'records',
  'requests',
  'scim',
  'sso',
  'subjects',
  'templates',
  'tenants',
  'webhooks',
  'witness',
  'monitor',
].join('|');
/**
 * The layers of src/, lowest first (docs/architecture.md, "The layers"): a folder imports only
 * folders of its own layer or below, type-only imports included (folder-cycles.mjs keeps the
 * folders of one layer from importing each other in a circle). A feature's routes files are the
 * HTTP edge, mounted by the composition root, and stand above every feature.
 */
const layers = [
  ['platform'],
  ['proof', 'journal', 'subjects', 'audit-trail', 'cookie-database'],
  ['record-kinds', 'publications'],
  ['tenants', 'api-keys', 'accounts', 'products', 'partners', 'templates', 'witness', 'monitor'],
  ['decisions', 'erasure', 'cookies', 'channels', 'partner-blocks', 'sso', 'scim'],
  [
    'records',
    'decision-log',
    'evidence',
    'webhooks',
    'metrics',
    'health',
    'consent-status',
    'preference-centre',
    'requests',
    'processing-record',
    'cookie-scanner',
  ],
  ['backoffice', 'preference-page', 'cli', 'write-path', 'app'],
];
const layerRules = layers.slice(0, -1).map((layer, i) => ({
  name: `layer-${i}-${layer[0]}`,
  comment: `${layer.join(', ')} import nothing of the layers above them: ${layers
    .slice(i + 1)
    .flat()
    .join(', ')}.`,
  severity: 'error',
  from: { path: `^src/(${layer.join('|')})/`, pathNot: routesFile },
  to: {
    path: `^src/(${layers
      .slice(i + 1)
      .flat()
      .join('|')})/`,
  },
}));

// The back-office's own service layer may use its own repositories (rule 4 keeps them inside).
const backofficeServiceLayer = '^src/backoffice/.*(service|repository|table)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'every-folder-in-a-layer',
      comment: 'Each folder of src/ has its place in the layers above (a new folder is given one).',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${layers.flat().join('|')})/` },
      to: {},
    },
    {
      name: 'platform-imports-platform',
      comment:
        'src/platform imports nothing from src/ outside it, type imports included: it is the ground every folder stands on. The features add their tables to its Database interface from their own table.ts.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'migrations-are-history',
      comment: 'Migrations import nothing from src/ outside their folder (frozen copies instead).',
      severity: 'error',
      from: { path: '^src/platform/migrations/' },
      to: { path: '^src/', pathNot: '^src/platform/migrations/' },
    },
    {
      name: 'features-do-not-import-edges',
      comment:
        'Feature code other than routes files never imports the back-office, the command line, the app, the server or a routes file.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/platform/|${edge}` },
      to: { path: edge },
    },
    {
      name: 'one-door-per-feature',
      comment:
        "Another folder reaches a feature only through its index.ts, the feature's public surface; its routes files are the HTTP edge that app/app.ts mounts.",
      severity: 'error',
      from: {
        path: '^src/([^/]+)',
        // The writer thread's script loads only the modules it runs: see
        // src/write-path/sqlite-writer.ts and the batch it writes.
        pathNot: ['^src/write-path/'],
      },
      to: {
        path: `^src/(${features})/`,
        pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', routesFile],
      },
    },
    {
      name: 'repository-stays-in-its-feature',
      comment:
        "A feature's repository.ts (and any *-repository.ts beside it) is imported only from its own folder; others use its service.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '(^|[/-])repository\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'edges-do-not-query',
      comment:
        'Routes files, the back-office, the preference page and the command line import no repository.ts and no kysely (type imports of Db/Executor from platform/db.ts are fine).',
      severity: 'error',
      from: {
        path: `${routesFile}|^src/backoffice/|^src/preference-page/|^src/cli/`,
        pathNot: backofficeServiceLayer,
      },
      to: { path: '(^|[/-])repository\\.ts$|(^|/)node_modules/kysely/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles; type-only imports are erased at build time and do not count.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-dev-dependencies-in-src',
      comment: 'What src/ runs must be installed in production: no devDependencies.',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      comment: 'A module in src/ that nothing imports and that imports nothing is dead.',
      severity: 'warn',
      // A read model's table.ts only declares the tables it reads (scripts/table-owners.mjs).
      from: { orphan: true, path: '^src/', pathNot: '\\.d\\.ts$|/table\\.ts$' },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a .js specifier names the .ts file beside it).',
      severity: 'error',
      from: { path: '^src/|^clients/typescript/src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'client-stands-alone',
      comment:
        'The client package (clients/typescript) ships without the service: its src/ imports its own files, openapi-fetch and standardwebhooks (webhook signatures), no other package and nothing of the service.',
      severity: 'error',
      from: { path: '^clients/typescript/src/' },
      to: {
        pathNot: '^clients/typescript/src/|(^|/)node_modules/(openapi-fetch|standardwebhooks)/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/|^clients/typescript/src/|node_modules/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
