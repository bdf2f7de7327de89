/** The public surface of `src/channels/`: what other folders may import (its README says what the folder is for). */
export {
  type Channel,
  type ChannelChangeOutcome,
  type ChannelChangeWriter,
  type ChannelState,
  channels,
  isChannel,
} from './channels.js';
export { channelChanges } from './kind.js';
export { channelCodePattern, NewTenantChannel } from './schemas.js';
export {
  type ChannelChangeEntry,
  type ChannelContext,
  customerChannelChanges,
  listChannels,
  productChannel,
  setChannel,
} from './service.js';
export type { ChannelChangeRow } from './table.js';
export {
  createTenantChannel,
  isTenantChannel,
  type TenantChannel,
  tenantChannels,
} from './tenant-channels.js';
