/**
 * The error every layer throws: `ApiError` (an HTTP status, a stable code, a message and, for a
 * 400, the field issues). It is the bottom floor; the envelope and the WWW-Authenticate challenge
 * a response carries are rendered in src/http/errors.ts.
 */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface ApiErrorExtra {
  required_scope?: string;
  /** The scope a 403 challenge names when the body carries no required_scope (plan_upgrade_required). */
  challenge_scope?: string;
  issues?: FieldIssue[];
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} was not found.`);

export const invalidRequest = (message: string, issues?: FieldIssue[]) =>
  new ApiError(400, "invalid_request", message, issues ? { issues } : {});
