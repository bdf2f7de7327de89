import { readFileSync } from 'node:fs';
import { partnersOfRelease } from '../partners/index.js';
import {
  changeDataCategoriesAs,
  changeRepresentationAs,
  changeValidityAs,
  createTemplate,
  dataCategoriesOf,
  effectiveInstant,
  formatRepresentation,
  getTemplateByCode,
  listTemplates,
  parseRepresentation,
  presentVersion,
  publishOutsideReview,
  representationOf,
} from '../templates/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, type Options, required, UsageError } from './command.js';

/**
 * The `template …` and `version …` commands (a group of the command line's table): a tenant's
 * templates and the versions published outside review.
 */
export const templateCommands: Commands = {
  'template create': {
    options: ['tenant', 'code', 'name', 'description', 'product', 'locale', 'validity-months'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const created = await createTemplate(trx, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
          ...(o.description === undefined ? {} : { description: o.description }),
          ...(o.product === undefined ? {} : { product: o.product }),
          ...(o.locale === undefined ? {} : { locale: o.locale }),
        });
        if (o['validity-months'] === undefined) return created;
        // Set, and audited, as a change of the template made a moment ago.
        const template = await changeValidityAs(
          trx,
          { tenantId: tenant.id, ...commandLine },
          await getTemplateByCode(trx, tenant.id, created.code),
          validityOption(o['validity-months']),
        );
        return { ...created, validity_months: template.validity_months };
      }),
  },
  'template update': {
    options: ['tenant', 'code', 'validity-months', 'data-categories', 'representation'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const categories = o['data-categories'];
        const representation = o.representation;
        if (
          o['validity-months'] === undefined &&
          categories === undefined &&
          representation === undefined
        ) {
          throw new UsageError(
            'template update needs --validity-months, --data-categories or --representation',
          );
        }
        const actor = { tenantId: tenant.id, ...commandLine };
        let template = await getTemplateByCode(trx, tenant.id, required(o, 'code'));
        if (o['validity-months'] !== undefined) {
          template = await changeValidityAs(
            trx,
            actor,
            template,
            validityOption(o['validity-months']),
          );
        }
        if (categories !== undefined) {
          const list = categories === 'none' ? [] : categories.split(',').map((c) => c.trim());
          template = await changeDataCategoriesAs(trx, actor, template, list);
        }
        if (representation !== undefined) {
          const rule = parseRepresentation(representation);
          template = await changeRepresentationAs(trx, actor, template, rule);
        }
        const { id, code, name, validity_months } = template;
        return {
          id,
          code,
          name,
          validity_months,
          // Shown when set by this command: the answer to a validity change stays as it was.
          ...(categories === undefined ? {} : { data_categories: dataCategoriesOf(template) }),
          ...(representation === undefined
            ? {}
            : { representation: formatRepresentation(representationOf(template)) }),
        };
      }),
  },
  'version publish': {
    options: [
      'tenant',
      'template',
      'tag',
      'content-file',
      'content',
      'file-url',
      'allow-reconsent',
      'effective-at',
      'locale',
      'variant',
      'partners',
    ],
    run: async (db, o, config) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const published = await db.transaction().execute((trx) =>
        publishOutsideReview(
          trx,
          { tenantId: tenant.id, ...commandLine },
          tenant.id,
          required(o, 'template'),
          {
            tag: required(o, 'tag'),
            content_html: content(o),
            ...(o['file-url'] === undefined ? {} : { file_url: o['file-url'] }),
            ...(o['allow-reconsent'] === undefined
              ? {}
              : { allow_reconsent: booleanOption(o['allow-reconsent'], 'allow-reconsent') }),
            ...(o.locale === undefined ? {} : { locale: o.locale }),
          },
          {
            ...(o['effective-at'] === undefined
              ? {}
              : { effectiveAt: effectiveInstant(o['effective-at'], 'effective-at') }),
            variants: variants(o),
            ...(o.partners === undefined ? {} : { partners: listOption(o.partners) }),
          },
        ),
      );
      const v = presentVersion(published, config.publicBaseUrl);
      // As `latest` answers it: the partners only when the version lists some.
      const partners = await partnersOfRelease(db, tenant.id, published.release_id);
      return partners.length > 0 ? { ...v, partners } : v;
    },
  },
  'template list': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const templates = await listTemplates(db, tenant.id);
      return {
        templates: templates.map((t) => ({
          code: t.code,
          name: t.name,
          product_code: t.product_code,
          latest_version: t.latest_version,
          latest_tag: t.latest_tag,
          latest_published_at: t.latest_published_at,
          draft_count: t.draft_count,
          archived_at: t.archived_at,
        })),
      };
    },
  },
};

/** A comma-separated option's values, blanks left out. */
function listOption(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** `--validity-months`: `none` clears it; anything else is the service's to check. */
function validityOption(value: string): string | null {
  return value === 'none' ? null : value;
}

function booleanOption(value: string, name: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false.`);
}

function content(options: Options): string {
  const file = options['content-file'];
  if (file !== undefined && options.content !== undefined) {
    throw new UsageError('Give either --content-file or --content, not both.');
  }
  if (file !== undefined) return readContentFile(file);
  return required(options, 'content');
}

function readContentFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** `--variant LOCALE=FILE`, each another locale's content of the release. */
function variants(options: Options): Array<{ locale: string; content_html: string }> {
  const given = (options as unknown as { variant?: string[] }).variant ?? [];
  return given.map((value) => {
    const at = value.indexOf('=');
    if (at < 1) throw new UsageError('--variant must be LOCALE=FILE, such as th=terms-th.html.');
    const file = value.slice(at + 1);
    return { locale: value.slice(0, at), content_html: readContentFile(file) };
  });
}
