import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';

export type CsvColumn<T> = readonly [header: string, value: (row: T) => string | number | null];

/**
 * Streams rows as CSV (RFC 4180: quoted where needed, CRLF line ends) while they are read, with
 * backpressure: a slow download slows the reading, and nothing but the rows in flight is held in
 * memory. A cell that starts with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`, so that a
 * spreadsheet does not run it as a formula (CSV injection).
 */
export function sendCsv<T>(
  reply: FastifyReply,
  filename: string,
  columns: ReadonlyArray<CsvColumn<T>>,
  rows: AsyncIterable<T>,
): FastifyReply {
  const csv = stringify({
    header: true,
    columns: columns.map(([header]) => header),
    escape_formulas: true,
    record_delimiter: 'windows',
  });
  async function* records() {
    for await (const row of rows) yield columns.map(([, value]) => value(row) ?? '');
  }
  pipeline(Readable.from(records()), csv).catch((error: unknown) => {
    // The answer has started (200): a failure can only cut it short, which the client sees.
    reply.request.log.error({ err: error }, 'CSV export failed part-way');
  });
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename.replace(/[^\w.-]/g, '_')}"`)
    .send(csv);
}
