import type { ControlJob, ControlOutcome, KindWriter } from '../record-kinds/index.js';

/** The contact channels a customer may block per product; every one is allowed until blocked. */
export const channels = ['email', 'sms', 'push', 'phone', 'post'] as const;

export type Channel = (typeof channels)[number];

export function isChannel(name: string): name is Channel {
  return (channels as readonly string[]).includes(name);
}

/** A channel's state as the API answers it. */
export interface ChannelState {
  product_code: string;
  channel: string;
  blocked: boolean;
  /** When the latest change was made; null when the channel was never changed. */
  since: string | null;
  /** The latest change's id (its receipt's); null when the channel was never changed. */
  record_id: string | null;
}

/** A change's outcome: recorded, unchanged (the channel had that state), or replayed by its key. */
export type ChannelChangeOutcome = ControlOutcome<ChannelState>;

/** The answer a channel change gives, as its idempotency key keeps it. */
export type ChannelChangeBody = { data: ChannelState };

/** How the service hands a change to the write path. */
export type ChannelChangeWriter = KindWriter<ControlJob, ChannelChangeOutcome>;
