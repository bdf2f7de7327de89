/**
 * A version's webhook events (approved, published, scheduled, archived), as an entry of the
 * registry of kinds with events alone: a version is no customer's record and has no leaf.
 */
import { Type } from 'typebox';
import { EventDateTime, type RecordKind } from '../record-kinds/index.js';

const versionFields = {
  consent_version_id: Type.String({ format: 'uuid' }),
  template_code: Type.String(),
  version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'The version number; null while not numbered yet (`version.approved`).',
  }),
  tag: Type.String(),
  locale: Type.String({ description: 'The locale of the text (BCP 47).' }),
  allow_reconsent: Type.Boolean(),
  published_at: Type.Union([EventDateTime, Type.Null()], {
    description: 'When it is live (the go-live time of a scheduled one); null when approved.',
  }),
};

const VersionData = Type.Object(versionFields, { description: "A version's public fields." });

const ArchivedVersionData = Type.Object(
  { ...versionFields, archived_at: EventDateTime },
  { description: "The archived template's latest version, and when it was archived." },
);

export const versionEvents = {
  name: 'version',
  events: {
    types: {
      'version.approved': {
        summary: 'A reviewed version was approved in the back-office',
        data: VersionData,
      },
      'version.published': { summary: 'A version was published and is live', data: VersionData },
      'version.scheduled': {
        summary: 'A version was published with a go-live time to come',
        data: VersionData,
      },
      'version.archived': {
        summary: 'A template with a published version was archived',
        data: ArchivedVersionData,
      },
    },
  },
} satisfies RecordKind;
