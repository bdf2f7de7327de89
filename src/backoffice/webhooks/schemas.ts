import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

export const NewEndpointForm = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  events: Type.Array(Type.String(), { minItems: 1 }),
  description: Type.String({ maxLength: 200 }),
});

export const newEndpointFormOptions: FormOptions<typeof NewEndpointForm> = {
  messages: {
    url: "The receiver's address: https://, at most 2048 characters.",
    events: 'Choose at least one event.',
    description: 'At most 200 characters.',
  },
  trim: ['url', 'description'],
};

export const ReplayForm = Type.Object({ from: Type.Integer({ minimum: 1 }) });

export const replayFormOptions: FormOptions<typeof ReplayForm> = {
  messages: { from: 'A position: a whole number, 1 or more (each delivery shows its own).' },
  trim: ['from'],
};
