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
 * proxy's own error page), and then `message` says what came back.
 */
export class ConsentApiError extends Error {
  override readonly name = 'ConsentApiError';
  readonly status: number;
  readonly code: string | undefined;
  readonly details: ConsentApiErrorDetail[] | undefined;
  /** The `X-Request-Id` of the answer: the service logs every request under it. */
  readonly requestId: string | undefined;
  /** How long the service asked to wait (`Retry-After`, on `429` and `503`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(
    status: number,
    body: unknown,
    fields: { requestId?: string | undefined; retryAfterMs?: number | undefined } = {},
  ) {
    const shaped = errorShape(body);
    super(shaped?.message ?? `The service answered HTTP ${status}.`);
    this.status = status;
    this.code = shaped?.code;
    this.details = shaped?.details;
    this.requestId = fields.requestId;
    this.retryAfterMs = fields.retryAfterMs;
  }
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
