import { logLeavesByTime } from '../decision-log/index.js';
import type { TimeTable } from '../platform/partitions.js';
import type { Registry } from '../record-kinds/index.js';

/**
 * The tables that PostgreSQL's partitions by time split (docs/postgresql.md): the records of
 * every kind that declares a time column, and the log's leaves.
 */
export function timeTables(registry: Registry): TimeTable[] {
  return [...registry.timeTables, logLeavesByTime];
}
