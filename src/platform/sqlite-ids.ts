/**
 * SQLite's ids as their 16 bytes instead of 36 characters of text: 20 bytes less in every row
 * and key that holds one, about 400 a decision (docs/performance.md). SQLite keeps in a column
 * whatever each row was given, so the store's schema does not change; what changes is the form
 * of every value: a store whose header says so (`pragma user_version`, `binaryIdsVersion`)
 * holds each value of a UUID's canonical form (lowercase hex, with its dashes) as a 16-byte
 * blob, in every table and column, whatever the column means.
 *
 * The statements of every connection (`sqlite-statements.ts`) keep the service's side as it
 * is: on such a store each parameter of that form is bound as its bytes, and each 16-byte blob
 * a row holds is read back as the UUID's text. No other blob the service keeps is 16 bytes long
 * (the log's leaves are 32). Since the rule is the same for every value, equality, order (bytes
 * compare as their lowercase hex does) and uniqueness are as they were on text.
 */
/** The header's `user_version` of a store that holds its ids as bytes. */
export const binaryIdsVersion = 1;

/** The connection's store holds its ids as bytes. */
export function holdsBinaryIds(userVersion: unknown): boolean {
  return userVersion === binaryIdsVersion;
}

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A statement's parameters, each UUID given as text bound as its bytes. */
export function idsAsBytes(parameters: readonly unknown[]): readonly unknown[] {
  // Copied only once a value changes: most parameters of most statements are not ids.
  let bound: unknown[] | undefined;
  for (let i = 0; i < parameters.length; i++) {
    const value = parameters[i];
    if (typeof value === 'string' && value.length === 36 && uuidText.test(value)) {
      bound ??= parameters.slice();
      bound[i] = Buffer.from(value.replaceAll('-', ''), 'hex');
    }
  }
  return bound ?? parameters;
}

/** A row's 16-byte blobs read as the UUIDs they hold, in place. */
export function idsAsText<T>(row: T): T {
  const values = row as Record<string, unknown>;
  for (const key in values) {
    const value = values[key];
    if (value instanceof Uint8Array && value.length === 16) values[key] = uuidOf(value);
  }
  return row;
}

function uuidOf(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The SQL condition that a value is a UUID as text in its canonical form (GLOB is
 * case-sensitive): what migration 0074 turned into bytes.
 */
function isUuidText(column: string): string {
  const hex = (n: number) => '[0-9a-f]'.repeat(n);
  const pattern = [hex(8), hex(4), hex(4), hex(4), hex(12)].join('-');
  return `(typeof(${column}) = 'text' and length(${column}) = 36 and ${column} glob '${pattern}')`;
}

/**
 * An SQL expression of text (a JSON array's value, say) as the store holds it when it is an id:
 * its bytes on a store that holds its ids so, the text itself otherwise. For the values a
 * statement takes other than as its parameters, which the connections bind in the store's form.
 */
export function sqliteIdOf(value: string): string {
  return `case when (select user_version from pragma_user_version) = ${binaryIdsVersion}
      and ${isUuidText(value)} then unhex(replace(${value}, '-', '')) else ${value} end`;
}

/**
 * An SQL expression of a column as text whatever it holds: a 16-byte blob (an id, on a store
 * that holds them so) as its UUID's text, any other value as it is. For what SQL does to a value
 * as text (`lower`, `like`), which a blob would not answer as its text does.
 */
export function sqliteIdText(column: string): string {
  const part = (from: number, length: number) => `substr(hex(${column}), ${from}, ${length})`;
  const uuid = [part(1, 8), part(9, 4), part(13, 4), part(17, 4), part(21, 12)].join(" || '-' || ");
  return `case when typeof(${column}) = 'blob' and length(${column}) = 16
      then lower(${uuid}) else ${column} end`;
}
