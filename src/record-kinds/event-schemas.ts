/** The parts of webhook payloads (`data`) that kinds share, for the OpenAPI document. */
import { type TProperties, Type } from 'typebox';

export const EventDateTime = Type.String({ format: 'date-time' });

export const LogIndex = Type.Integer({
  minimum: 0,
  description: "The record's leaf index in the tenant's decision log (what its receipt proves).",
});

export const EventVia = Type.Optional(
  Type.Literal('preference-centre', {
    description:
      'Present only for a record the customer made on the preference centre (its evidence says so).',
  }),
);

export const CustomerIdOrNull = Type.Union([Type.String(), Type.Null()], {
  description: 'The customer id; null once the customer was erased.',
});

/** Who made a control's change: an API key, or a back-office user. */
export const EventActor = Type.Object(
  {
    api_key_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  },
  {
    description: 'Who made it: the API key that sent it, or the back-office user (the other null).',
  },
);

/** A control change's event `data`: the change, its customer, the kind's fields, who made it. */
export function controlEventData(fields: TProperties, description: string) {
  return Type.Object(
    {
      change_id: Type.String({ format: 'uuid', description: "The change's id (its receipt's)." }),
      customer_id: CustomerIdOrNull,
      ...fields,
      blocked: Type.Boolean({ description: 'true: blocked from then on; false: allowed again.' }),
      changed_at: EventDateTime,
      actor: EventActor,
      via: EventVia,
      log_index: LogIndex,
    },
    { description },
  );
}
