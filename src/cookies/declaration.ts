/**
 * The cookie declaration of a system's published configuration (docs/cookie-scans.md, "The
 * cookie declaration"): by category, each cookie its content lists with who sets it, for how long
 * and what for. Served as JSON (the banner's preferences fetch it when they open, so the banner
 * script carries none of it) and as a page per locale that a site embeds in its cookie policy.
 */
import escapeHtml from 'escape-html';
import type { ConfigurationContent } from './content.js';

export interface DeclaredCookie {
  name: string;
  domain: string | null;
  provider: string | null;
  retention: string | null;
  /** By locale. */
  purpose: Record<string, string>;
}

export interface Declaration {
  configuration_id: string;
  version: number;
  default_locale: string;
  locales: string[];
  categories: {
    key: string;
    required: boolean;
    texts: Record<string, { name: string; description: string }>;
    cookies: DeclaredCookie[];
  }[];
}

export function declarationOf(
  content: ConfigurationContent,
  configuration: { id: string; version: number },
): Declaration {
  return {
    configuration_id: configuration.id,
    version: configuration.version,
    default_locale: content.default_locale,
    locales: Object.keys(content.texts),
    categories: content.categories.map((c) => ({
      key: c.key,
      required: c.required,
      texts: c.texts,
      cookies: (c.cookies ?? []).map((k) => ({
        name: k.name,
        domain: k.domain ?? null,
        provider: k.provider ?? null,
        retention: k.retention ?? null,
        purpose: k.purpose ?? {},
      })),
    })),
  };
}

/** The page's own words, in the languages the service has them in; English for the others. */
const words = {
  en: {
    title: 'Cookie declaration',
    cookie: 'Cookie',
    provider: 'Provider',
    retention: 'Retention',
    purpose: 'Purpose',
    none: 'No cookie is listed for this category.',
    always: 'Always on',
  },
  th: {
    title: 'รายการคุกกี้',
    cookie: 'คุกกี้',
    provider: 'ผู้ให้บริการ',
    retention: 'ระยะเวลาจัดเก็บ',
    purpose: 'วัตถุประสงค์',
    none: 'ไม่มีคุกกี้ในหมวดนี้',
    always: 'เปิดใช้งานเสมอ',
  },
} as const;

/** The locale a page is shown in: the one asked for when the configuration has its texts. */
export function declarationLocale(declaration: Declaration, asked: string | undefined): string {
  const wanted = asked?.toLowerCase();
  return wanted && declaration.locales.includes(wanted) ? wanted : declaration.default_locale;
}

/** The declaration as a page of its own in `locale`, with no script, to embed in a frame. */
export function declarationPage(declaration: Declaration, locale: string): string {
  const w = words[(locale.split('-')[0] ?? '') as keyof typeof words] ?? words.en;
  const text = (byLocale: Record<string, string>) =>
    byLocale[locale] ?? byLocale[declaration.default_locale] ?? '';
  const sections = declaration.categories.map((c) => {
    const texts = c.texts[locale] ?? c.texts[declaration.default_locale];
    const rows = c.cookies
      .map(
        (k) =>
          `<tr><td><code>${escapeHtml(k.name)}</code>${k.domain ? `<br><small>${escapeHtml(k.domain)}</small>` : ''}</td><td>${escapeHtml(k.provider ?? '')}</td><td>${escapeHtml(k.retention ?? '')}</td><td>${escapeHtml(text(k.purpose))}</td></tr>`,
      )
      .join('');
    const table =
      c.cookies.length === 0
        ? `<p>${w.none}</p>`
        : `<table><thead><tr><th scope="col">${w.cookie}</th><th scope="col">${w.provider}</th><th scope="col">${w.retention}</th><th scope="col">${w.purpose}</th></tr></thead><tbody>${rows}</tbody></table>`;
    return `<section><h2>${escapeHtml(texts?.name ?? c.key)}${c.required ? ` <small>(${w.always})</small>` : ''}</h2><p>${escapeHtml(texts?.description ?? '')}</p>${table}</section>`;
  });
  return `<!doctype html>
<html lang="${escapeHtml(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${w.title}</title>
<style>body{margin:0;padding:16px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#fff}h1{font-size:1.4em}h2{font-size:1.15em;margin:1.2em 0 .3em}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ccc;padding:6px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}</style>
</head>
<body>
<h1>${w.title}</h1>
${sections.join('\n')}
</body>
</html>
`;
}
