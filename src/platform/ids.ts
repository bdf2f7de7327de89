import { v7 } from 'uuid';

/** Time-ordered UUIDs (v7): index-friendly, and unguessable enough for public content URLs. */
export function newId(): string {
  return v7();
}

/**
 * The nil UUID: where a statement needs an id that no record has (the start of a walk by time
 * and id). A store whose ids are `uuid` columns takes no empty text in their place.
 */
export const noId = '00000000-0000-0000-0000-000000000000';

export const uuidPattern =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
