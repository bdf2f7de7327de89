import type { Migration } from 'kysely';
import type { TimeTable } from '../platform/partitions.js';
import type { LeafFormat } from '../proof/index.js';
import type { EventPayload, RecordKind } from './kind.js';

/**
 * The kinds of record the service keeps, as every generic piece loops over them: the write path
 * routes a job to its kind by name, the log's audit and receipts find a leaf's kind by its
 * header, the webhooks an event's by its type. Made once, by the composition root
 * (`src/app/kinds.ts`); a test adds its own kind to a registry of its own.
 */
export interface Registry {
  /**
   * The module that declares the registry, as a URL: the SQLite writer thread imports it there
   * (its `registry` export), since a thread shares no objects with the main thread.
   */
  module: string;
  kinds: readonly RecordKind[];
  /** Every webhook event type, in the kinds' order. */
  eventTypes: readonly string[];
  /** Each event type's payload, for the OpenAPI document. */
  payloads: ReadonlyMap<string, EventPayload>;
  /** Every kind's leaf format, for receipts and evidence packs checked offline. */
  formats: readonly LeafFormat[];
  /** The kinds' own migrations (`migrateToLatest`'s `more`). */
  migrations: Readonly<Record<string, Migration>>;
  /** The kinds' tables that grow without bound, with the column that dates a record. */
  timeTables: readonly TimeTable[];
  /** The kind of this name; throws for a name no kind has. */
  kind(name: string): RecordKind;
  /** The kind that sends events of this type. */
  byEventType(type: string): RecordKind | undefined;
  /** The (first) kind whose leaf format the leaf is in, by its header. */
  byLeaf(leaf: string): RecordKind | undefined;
}

/**
 * A registry of these kinds, declared in `module` (pass `import.meta.url`). Two kinds may not
 * share a name or an event type.
 */
export function defineRegistry(module: string, kinds: readonly RecordKind[]): Registry {
  const byName = new Map<string, RecordKind>();
  const byType = new Map<string, RecordKind>();
  const byHeader = new Map<string, RecordKind>();
  const payloads = new Map<string, EventPayload>();
  for (const kind of kinds) {
    if (byName.has(kind.name)) throw new Error(`two kinds are named ${kind.name}`);
    byName.set(kind.name, kind);
    for (const [type, payload] of Object.entries(kind.events?.types ?? {})) {
      if (byType.has(type)) throw new Error(`two kinds send ${type}`);
      byType.set(type, kind);
      payloads.set(type, payload);
    }
    // An erasure's tombstone is a decision's leaf that says `erased`: two kinds may share a
    // format, and a leaf then names the first.
    const header = kind.records?.format.header;
    if (header !== undefined && !byHeader.has(header)) byHeader.set(header, kind);
  }
  const formats = kinds.flatMap((kind) => (kind.records ? [kind.records.format] : []));
  return {
    module,
    kinds,
    eventTypes: [...byType.keys()],
    payloads,
    formats: [...new Set(formats)],
    migrations: Object.assign({}, ...kinds.map((kind) => kind.migrations ?? {})),
    timeTables: kinds.flatMap(({ records }) =>
      records?.timeColumn ? [{ table: records.table, column: records.timeColumn }] : [],
    ),
    kind(name) {
      const kind = byName.get(name);
      if (!kind) throw new Error(`no kind of record is named ${name}`);
      return kind;
    },
    byEventType: (type) => byType.get(type),
    byLeaf: (leaf) => byHeader.get(leaf.slice(0, leaf.indexOf('\n'))),
  };
}
