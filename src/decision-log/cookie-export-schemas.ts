/** The OpenAPI shapes of a cookie decision's receipt exports (cookie-exports.ts). */
import { Type } from 'typebox';
import {
  DateTime,
  type ExportKind,
  iso27560Schema,
  isoProcessFields,
  isoStatus,
  kantaraSchema,
  Str,
} from './export-schemas.js';

const cookieKind: ExportKind<'consent-log/cookie/v1'> = {
  leafFormat: 'consent-log/cookie/v1',
  record: 'The cookie decision id',
  subject: 'visitor id',
  policy: 'The cookie policy the banner linked to in the locale shown, or `unspecified`',
};

const Method = Type.Enum(['accept-all', 'reject-all', 'custom', 'gpc']);

export const CookieIso27560Receipt = iso27560Schema(
  cookieKind,
  {
    'dpv:hasNotice': Type.Object({
      '@id': Str('`urn:uuid:` of the configuration id'),
      '@type': Str(),
      'dct:identifier': Str('The configuration id'),
      'dct:isVersionOf': Type.Object({
        'dct:identifier': Str("The system's scope"),
        'dct:title': Str("The system's name"),
      }),
      'clog:versionNumber': Type.Integer({ minimum: 1 }),
      'clog:contentSha256': Str("Hex SHA-256 of the configuration's content"),
      'dct:issued': DateTime,
      'dct:language': Str('The locale the banner was shown in'),
      'dct:references': Type.Optional(
        Type.Object({ '@id': Str('The cookie policy the banner linked to') }),
      ),
    }),
    'dpv:hasProcess': Type.Array(
      Type.Object({
        '@type': Str(),
        'dpv:hasPurpose': Type.Object({
          '@type': Str(),
          'dct:identifier': Str("The category's key"),
          'dct:title': Str("The category's name in the locale shown"),
          'dct:description': Type.Optional(Str()),
        }),
        ...isoProcessFields,
        'dpv:hasConsentStatus': isoStatus(['dpv:ConsentGiven', 'dpv:ConsentRefused']),
      }),
      { description: "One per category of the configuration, in the configuration's order" },
    ),
    'dpv:hasConsentControl': Type.Object({
      '@type': Str(),
      'dct:description': Str(),
      'dpv:isExercisedAt': Str('Where the banner records a new choice'),
    }),
  },
  'ISO/IEC TS 27560 consent receipt in W3C DPV JSON-LD (dpv-27560:receipt) of a cookie decision',
);

export const CookieKantaraReceipt = kantaraSchema(
  cookieKind,
  {
    method: Method,
    categories: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Every category of the configuration: granted (true) or refused',
    }),
    decisionId: Type.String({ format: 'uuid' }),
    decidedAt: DateTime,
    scope: Str("The system's scope"),
    configurationId: Type.String({ format: 'uuid' }),
    version: Type.Integer({ minimum: 1 }),
    contentSha256: Str(),
    locale: Str(),
  },
  'Not in v1.1: the choice itself and its proof in the decision log',
);
