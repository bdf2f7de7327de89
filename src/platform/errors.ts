/**
 * The one catalogue of error codes (contract section 3). Services throw `AppError`; the error
 * handler turns it, and every framework error, into `{code, message[, details]}`.
 */
export const errors = {
  internal: { status: 500, code: '1000', message: 'Internal server error.' },
  invalidRequest: { status: 400, code: '1001', message: 'Invalid request.' },
  unauthorized: { status: 401, code: '1002', message: 'Unauthorized.' },
  notFound: { status: 404, code: '1004', message: 'Not found.' },
  templateNotFound: { status: 404, code: '1004', message: 'Template not found.' },
  versionNotFound: { status: 404, code: '1004', message: 'Consent version not found.' },
  nothingToWithdraw: { status: 409, code: '1005', message: 'Nothing to withdraw.' },
  reconsentNotAllowed: {
    status: 409,
    code: '1005',
    message: 'Re-consent is not allowed for this version.',
  },
  conflict: { status: 409, code: '1005', message: 'Conflict.' },
  // A `given` on a template that covers sensitive data (PDPA section 26) without `explicit`.
  explicitConsentRequired: {
    status: 409,
    code: '1005',
    message: 'Explicit consent is required: this template covers sensitive data.',
  },
  // A decision that breaks its template's rule of who may decide for whom (PDPA section 20); the
  // message names the rule (templates/representation.ts).
  representationRefused: {
    status: 409,
    code: '1005',
    message: "Refused by this template's rule of who may decide.",
  },
  payloadTooLarge: { status: 413, code: '1006', message: 'Payload too large.' },
  unsupportedMediaType: { status: 415, code: '1007', message: 'Unsupported media type.' },
  tooManyRequests: { status: 429, code: '1008', message: 'Too many requests.' },
  unavailable: { status: 503, code: '1009', message: 'Service unavailable.' },
  methodNotAllowed: { status: 405, code: '1011', message: 'Method not allowed.' },
  idempotencyMismatch: {
    status: 422,
    code: '1010',
    message: 'Idempotency key reused with a different request.',
  },
  // The back-office's own refusals, shown as pages; the API never answers them (the contract's
  // catalogue leaves 1003 unused).
  forbidden: { status: 403, code: '1003', message: 'Not available.' },
  crossSiteForm: { status: 403, code: '1003', message: 'This form was sent from another site.' },
  // The public cookie endpoints' refusal of a page on an origin its system does not list.
  originNotAllowed: { status: 403, code: '1003', message: 'Origin not allowed.' },
  // SCIM's own refusals (RFC 7644 section 3.12), answered under /scim/v2 only, in SCIM's error
  // format with the `scimType` of their name (src/scim/errors.ts); the API never answers them.
  invalidFilter: {
    status: 400,
    code: '1001',
    message: 'The filter is not one this service reads.',
  },
  invalidValue: { status: 400, code: '1001', message: 'A value is missing or not valid.' },
  invalidPath: { status: 400, code: '1001', message: 'The path names nothing this service keeps.' },
  noTarget: { status: 400, code: '1001', message: 'The path matches nothing.' },
  mutability: { status: 400, code: '1001', message: 'This attribute cannot be changed.' },
  uniqueness: { status: 409, code: '1005', message: 'The value is already taken.' },
} as const satisfies Record<string, ErrorSpec>;

export interface ErrorSpec {
  status: number;
  code: string;
  message: string;
}

export type ErrorName = keyof typeof errors;

export interface ErrorDetail {
  field: string;
  issue: string;
}

export class AppError extends Error {
  /** The catalogue entry it was made from. */
  readonly kind: ErrorName;
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    name: ErrorName,
    options: { message?: string; details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    const spec: ErrorSpec = errors[name];
    super(options.message ?? spec.message);
    this.name = 'AppError';
    this.kind = name;
    this.status = spec.status;
    this.code = spec.code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The body every error response carries. */
export interface ErrorBody {
  code: string;
  message: string;
  details?: ErrorDetail[];
}

export function errorBody(error: AppError): ErrorBody {
  return error.details
    ? { code: error.code, message: error.message, details: error.details }
    : { code: error.code, message: error.message };
}
