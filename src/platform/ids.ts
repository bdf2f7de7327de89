import { v7 } from 'uuid';

/** Time-ordered UUIDs (v7): index-friendly, and unguessable enough for public content URLs. */
export function newId(): string {
  return v7();
}

export const uuidPattern =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
