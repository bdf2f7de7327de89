/** The public surface of `src/channels/`: what other folders may import (its README says what each part is). */
export { type Channel, type ChannelState, channels, isChannel } from './channels.js';
export { committedChannelLeaf, type LoggedChannelChange, leafOfChannelChange } from './leaf.js';
export type {
  ChannelChangeJob,
  ChannelChangeOutcome,
  ChannelChangeWriter,
} from './record-changes.js';
export { channelCodePattern, NewTenantChannel } from './schemas.js';
export {
  type ChannelChangeEntry,
  type ChannelContext,
  channelChangesOf,
  customerChannelChanges,
  findChannelChange,
  listChannels,
  setChannel,
  subjectChannelChanges,
} from './service.js';
export type { ChannelChangeRow } from './table.js';
export {
  createTenantChannel,
  isTenantChannel,
  type TenantChannel,
  tenantChannels,
} from './tenant-channels.js';
