/**
 * Query parameters whose values are secrets whatever they look like, wherever they are sent: the
 * service reads its key only from the `x-system-api-key` header, but clients and proxies put keys,
 * tokens and passwords in URLs, and a URL is written to the log. Names are compared ignoring case
 * and percent-encoding.
 */
const secretParameters: ReadonlySet<string> = new Set([
  'x-system-api-key',
  'api_key',
  'api-key',
  'apikey',
  'key',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'auth',
  'authorization',
  'password',
  'passwd',
  'pwd',
  'secret',
  'client_secret',
]);

/** What stands in a log line for a value that was taken out. */
export const redacted = '[Redacted]';

/**
 * An API key (`csk_<12 hex>_<secret>`, see api-keys/keys.ts), its underscores possibly
 * percent-encoded: the visible prefix is kept, to tell which key it was, the secret is not.
 */
const apiKey = /(csk(?:_|%5f)[0-9a-f]{12})(?:_|%5f)[A-Za-z0-9_%-]+/gi;
const mayHoldKey = /csk/i;
/** `name=value` after `?` or `&`; a value ends where a URL or a quoted message would end it. */
const parameter = /([?&])([^=&#\s'"]*)=([^&#\s'"]*)/g;

/**
 * The text (a URL, or a message that quotes one) with every API key and the value of every
 * parameter named in `secretParameters` replaced by `[Redacted]`. A text with no `?` and no
 * `csk` costs two scans and is returned as it is.
 */
export function redactSecrets(text: string): string {
  let result = text;
  if (mayHoldKey.test(result)) result = result.replace(apiKey, `$1_${redacted}`);
  if (result.includes('?')) result = result.replace(parameter, redactParameter);
  return result;
}

function redactParameter(whole: string, separator: string, name: string, value: string): string {
  if (value === '' || value === redacted || !secretParameters.has(normalName(name))) return whole;
  return `${separator}${name}=${redacted}`;
}

function normalName(name: string): string {
  if (!name.includes('%')) return name.toLowerCase();
  try {
    return decodeURIComponent(name).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}
