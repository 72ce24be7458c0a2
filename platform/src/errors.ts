import type { ErrorCode } from '@verdict/contracts';

/**
 * Errors are values with a stable code from the spec's table and a retriable flag. The domain throws or
 * returns these; exactly one HTTP middleware turns them into the envelope. Nothing here knows HTTP.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly details?: unknown;

  constructor(
    code: ErrorCode,
    message: string,
    options: { retriable?: boolean; details?: unknown; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
    this.details = options.details;
  }
}

export class ValidationError extends AppError {
  constructor(
    message: string,
    details?: unknown,
    code: 'VALIDATION_ERROR' | 'INVALID_ATTEMPT' = 'VALIDATION_ERROR',
  ) {
    super(code, message, { details });
  }
}

export class NotFoundError extends AppError {
  constructor(
    message = 'Resource not found',
    code: 'NOT_FOUND' | 'TEST_RUN_NOT_FOUND' | 'TEST_SUITE_NOT_FOUND' | 'TEST_CASE_NOT_FOUND' = 'NOT_FOUND',
  ) {
    super(code, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, code: 'CONFLICT' | 'PROJECT_LIMIT_REACHED' | 'RUN_FINISHED' = 'CONFLICT') {
    super(code, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(
    message = 'Missing or invalid credentials',
    code: 'UNAUTHORIZED' | 'AUTH_INVALID_TOKEN' = 'UNAUTHORIZED',
  ) {
    super(code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Not allowed') {
    super('FORBIDDEN', message);
  }
}

export class RateLimitError extends AppError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = 'Rate limit exceeded') {
    super('RATE_LIMIT_EXCEEDED', message, { retriable: true });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A path some route serves, asked with a method none of them takes: 405 with `Allow` (RFC 9110 §15.5.6). */
export class MethodNotAllowedError extends AppError {
  readonly allowed: readonly string[];
  constructor(method: string, path: string, allowed: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`);
    this.allowed = allowed;
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message = 'Request body too large') {
    super('PAYLOAD_TOO_LARGE', message);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message = 'Service unavailable', cause?: unknown) {
    super('SERVICE_UNAVAILABLE', message, { retriable: true, cause });
  }
}

/**
 * The event store refused an append because the stream is not at the expected version: somebody else
 * wrote first. handleCommand retries on it; anything else surfaces it as a 409.
 */
export class VersionConflictError extends AppError {
  readonly streamId: string;
  readonly expectedVersion: number | 'no_stream' | 'any';
  readonly actualVersion: number;
  constructor(streamId: string, expectedVersion: number | 'no_stream' | 'any', actualVersion: number) {
    super(
      'CONFLICT',
      `Stream ${streamId} is at version ${actualVersion}, expected ${String(expectedVersion)}`,
      {
        retriable: true,
      },
    );
    this.streamId = streamId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}
