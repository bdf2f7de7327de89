/**
 * The codes of the service's error catalogue (the contract, section 3), each with its status:
 * `1000` 500 internal error, `1001` 400 invalid request, `1002` 401 unauthorized, `1004` 404 not
 * found, `1005` 409 a decision the rules refuse, `1006` 413 payload too large, `1007` 415
 * unsupported media type, `1008` 429 too many requests, `1009` 503 unavailable, `1010` 422
 * idempotency key reused with another request, `1011` 405 method not allowed.
 */
export const errorCodes = [
  '1000',
  '1001',
  '1002',
  '1004',
  '1005',
  '1006',
  '1007',
  '1008',
  '1009',
  '1010',
  '1011',
] as const;

/** A code of the catalogue: `switch (error.code)` is checked by the compiler. */
export type ConsentErrorCode = (typeof errorCodes)[number];

/** One problem a `400 1001` names: where (`body.decision`, `params.customer_id`, …) and what. */
export interface ConsentApiErrorDetail {
  field: string;
  issue: string;
}

/**
 * An answer of the service that is not a success, as the contract's error body says it:
 * `{"code": "<digits>", "message": "…", "details"?: […]}`. `code` is the catalogue's code
 * (`"1002"` unauthorized, `"1004"` not found, `"1005"` a decision the rules refuse, …); it is
 * `undefined` only when something between the client and the service answered instead (a
 * proxy's own error page, or a code this client does not know), and then `message` says what
 * came back.
 */
export class ConsentApiError extends Error {
  override readonly name = 'ConsentApiError';
  readonly status: number;
  readonly code: ConsentErrorCode | undefined;
  readonly details: ConsentApiErrorDetail[] | undefined;
  /** The `X-Request-Id` of the answer: the service logs every request under it. */
  readonly requestId: string | undefined;
  /** How long the service asked to wait (`Retry-After`, on `429` and `503`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /**
   * True when an `Idempotency-Key` seen before answered this refusal again (`Idempotent-Replayed`):
   * a decision refused the first time is refused the same way, and nothing was stored.
   */
  readonly replayed: boolean;

  constructor(
    status: number,
    body: unknown,
    fields: {
      requestId?: string | undefined;
      retryAfterMs?: number | undefined;
      replayed?: boolean;
    } = {},
  ) {
    const shaped = errorShape(body);
    super(shaped?.message ?? `The service answered HTTP ${status}.`);
    this.status = status;
    const code = shaped?.code;
    this.code = isErrorCode(code) ? code : undefined;
    this.details = shaped?.details;
    this.requestId = fields.requestId;
    this.retryAfterMs = fields.retryAfterMs;
    this.replayed = fields.replayed ?? false;
  }
}

function isErrorCode(code: string | undefined): code is ConsentErrorCode {
  return (errorCodes as readonly (string | undefined)[]).includes(code);
}

function errorShape(
  body: unknown,
): { code: string; message: string; details?: ConsentApiErrorDetail[] } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, message, details } = body as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return Array.isArray(details)
    ? { code, message, details: details as ConsentApiErrorDetail[] }
    : { code, message };
}
