import { z } from 'zod';

/**
 * Stable error codes. Clients branch on these (spec §1, §7); messages are for humans and may change.
 * The spec's table comes first; the rest are the codes of API.md and of the HTTP kit.
 */
export const ErrorCode = z.enum([
  'VALIDATION_ERROR',
  'INVALID_ATTEMPT',
  'UNAUTHORIZED',
  'AUTH_INVALID_TOKEN',
  'FORBIDDEN',
  'NOT_FOUND',
  'TEST_RUN_NOT_FOUND',
  'TEST_SUITE_NOT_FOUND',
  'TEST_CASE_NOT_FOUND',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  // API.md and the HTTP kit
  'CONFLICT',
  'PROJECT_LIMIT_REACHED',
  'RUN_FINISHED',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'SERVICE_UNAVAILABLE',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The HTTP status each code is answered with; one table so that every service maps codes alike. */
export const httpStatusOf: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  INVALID_ATTEMPT: 400,
  UNAUTHORIZED: 401,
  AUTH_INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TEST_RUN_NOT_FOUND: 404,
  TEST_SUITE_NOT_FOUND: 404,
  TEST_CASE_NOT_FOUND: 404,
  CONFLICT: 409,
  PROJECT_LIMIT_REACHED: 409,
  RUN_FINISHED: 409,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};
