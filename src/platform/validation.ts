import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { AppError, type ErrorDetail } from './errors.js';

/**
 * Checks input that does not come through a route schema (command line, back-office forms)
 * against the same TypeBox schemas, failing with the catalogue's `400 1001` and its details.
 */
export function validate<T extends TSchema>(schema: T, input: unknown): Static<T> {
  if (Value.Check(schema, input)) return input as Static<T>;
  const details: ErrorDetail[] = Value.Errors(schema, input).map((e) => ({
    field: fieldName(e.instancePath, e.params),
    issue: e.message,
  }));
  throw new AppError('invalidRequest', { details: dedupe(details) });
}

function fieldName(instancePath: string, params: unknown): string {
  const missing = (params as { requiredProperties?: string[] } | undefined)?.requiredProperties;
  if (missing?.[0]) return missing[0];
  return instancePath.replace(/^\//, '').replaceAll('/', '.') || '(input)';
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.field}\u0000${d.issue}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
