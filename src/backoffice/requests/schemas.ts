import { Type } from 'typebox';

/** The forms of the requests' pages; the requests service checks what they carry. */
export const OpenForm = Type.Object({
  customer_id: Type.String(),
  kind: Type.String(),
  details: Type.String(),
});
export const StepForm = Type.Object({
  step: Type.String(),
  ground: Type.String(),
  reason: Type.String(),
});
export const AssignForm = Type.Object({ assignee_id: Type.String() });
export const NoteForm = Type.Object({ body: Type.String() });
