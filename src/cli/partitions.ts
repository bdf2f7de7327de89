import { timeTables } from '../app/time-tables.js';
import {
  type PartitionInterval,
  partitionByTime,
  partitionIntervals,
  partitionStates,
} from '../platform/partitions.js';
import { type Commands, required, UsageError } from './command.js';

/** The `store …` commands: PostgreSQL's partitions by time (docs/postgresql.md). */
export const partitionCommands: Commands = {
  'store partition': {
    options: ['interval'],
    // A table's rows are copied in one statement: minutes at tens of millions.
    unbounded: true,
    run: async (db, o, _config, _vault, registry) => {
      const interval = required(o, 'interval');
      if (!partitionIntervals.includes(interval as PartitionInterval)) {
        throw new UsageError(`--interval is ${partitionIntervals.join(' or ')}.`);
      }
      return partitionByTime(db, timeTables(registry), interval as PartitionInterval);
    },
  },
  'store partitions': {
    options: [],
    run: (db, _o, _config, _vault, registry) => partitionStates(db, timeTables(registry)),
  },
};
