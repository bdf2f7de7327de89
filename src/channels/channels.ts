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
