import type { ChannelChangeBody, ChannelChangeOutcome } from './channels.js';

/** The API's answer to a channel change: what is sent, and what an idempotency key replays. */
export interface ChannelChangeAnswer {
  /** A change answers only these; a key keeps and replays one of them. */
  status: 200 | 201;
  body: ChannelChangeBody;
  /** True when an idempotency key answered a stored response. */
  replayed: boolean;
}

/** `201` recorded, `200` unchanged, or the first answer again for a replayed key. */
export function channelAnswerOf(outcome: ChannelChangeOutcome): ChannelChangeAnswer {
  switch (outcome.kind) {
    case 'recorded':
      return { status: 201, body: { data: outcome.state }, replayed: false };
    case 'unchanged':
      return { status: 200, body: { data: outcome.state }, replayed: false };
    case 'replayed':
      return {
        status: outcome.answer.status === 201 ? 201 : 200,
        body: outcome.answer.body,
        replayed: true,
      };
  }
}
