import { httpStatusOf, type ErrorCode, type ErrorEnvelope } from '@verdict/contracts';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError, MethodNotAllowedError, NotFoundError, RateLimitError } from '../errors';
import type { Logger } from '../logging';
import { methodsServing } from './allowedMethods';
import { describeIssues } from './validate';

/**
 * THE error middleware: every failure of every service becomes the spec's envelope here, and nowhere
 * else. Known errors keep their code; anything unexpected is a 500 INTERNAL_ERROR with a generic message,
 * its stack logged and never sent.
 */

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
  /** True when the error was not foreseen: the caller logs its stack. */
  unexpected: boolean;
}

/**
 * Maps any thrown value to the answer the client gets. Pure, so the mapping is testable without HTTP.
 *
 * @example const { status, body } = toErrorResponse(new NotFoundError());
 */
export function toErrorResponse(err: unknown): ErrorResponse {
  if (err instanceof AppError) {
    return answer(err.code, err.message, headersOf(err));
  }
  if (err instanceof z.core.$ZodError) {
    return answer('VALIDATION_ERROR', describeIssues(err.issues));
  }
  const fromParser = bodyParserError(err);
  if (fromParser) return answer(fromParser.code, fromParser.message);
  const fromHttp = httpClientError(err);
  if (fromHttp) return answer(fromHttp.code, fromHttp.message);
  return { ...answer('INTERNAL_ERROR', 'Internal server error'), unexpected: true };
}

/**
 * The one error-handling middleware; mount it last (finish() does).
 *
 * @example app.use(errorMiddleware(logger));
 */
export function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    // Mid-stream the envelope can no longer be sent: Express closes the connection instead.
    if (res.headersSent) {
      next(err);
      return;
    }
    const response = toErrorResponse(err);
    const log: Logger = res.locals.log ?? logger;
    if (response.unexpected) {
      log.error({ err, method: req.method, path: req.path }, 'unexpected error');
    } else if (response.status >= 500) {
      log.warn({ err, code: response.body.error.code }, 'request failed');
    } else {
      log.debug({ code: response.body.error.code, message: response.body.error.message }, 'request rejected');
    }
    res.status(response.status).set(response.headers).json(response.body);
  };
}

/**
 * Answers every request no route took: 405 METHOD_NOT_ALLOWED with `Allow` when a route serves its path
 * with other methods (TRACE on a list, DELETE on a run), else 404 NOT_FOUND.
 *
 * @example app.use(notFoundFallback());
 */
export function notFoundFallback(): RequestHandler {
  return (req, _res, next) => {
    const allowed = methodsServing(req.app, req.path);
    next(
      allowed.length > 0
        ? new MethodNotAllowedError(req.method, req.path, allowed)
        : new NotFoundError(`No route for ${req.method} ${req.path}`),
    );
  };
}

/** The headers an error's status asks for: when to retry a 429, what a 405's resource allows. */
function headersOf(err: AppError): Record<string, string> {
  if (err instanceof RateLimitError)
    return { 'Retry-After': String(Math.max(0, Math.ceil(err.retryAfterSeconds))) };
  if (err instanceof MethodNotAllowedError) return { Allow: err.allowed.join(', ') };
  return {};
}

function answer(code: ErrorCode, message: string, headers: Record<string, string> = {}): ErrorResponse {
  return {
    status: httpStatusOf[code],
    headers,
    body: { success: false, error: { code, message } },
    unexpected: false,
  };
}

/** The raw body a parser refused, when it kept it (body-parser does, as `body`). */
const bodyOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'body' in err && typeof err.body === 'string' ? err.body : '';

/** Errors of Express's body parsers carry a `type`; see body-parser's README. */
function bodyParserError(err: unknown): { code: ErrorCode; message: string } | undefined {
  const type = typeof err === 'object' && err !== null && 'type' in err ? err.type : undefined;
  switch (type) {
    case 'entity.parse.failed':
      // Strict parsing refuses a bare `null`, number or string: valid JSON, but not a body of fields.
      return {
        code: 'VALIDATION_ERROR',
        message: /^\s*(null|true|false|-?\d|")/.test(bodyOf(err))
          ? 'body: must be a JSON object'
          : 'Malformed JSON body',
      };
    case 'entity.too.large':
      return { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' };
    // Spec §7 names one code for a body that cannot be read as the parameters it should hold.
    case 'charset.unsupported':
      return { code: 'VALIDATION_ERROR', message: 'body: unsupported charset, send UTF-8' };
    case 'encoding.unsupported':
      return {
        code: 'VALIDATION_ERROR',
        message: 'body: unsupported Content-Encoding (gzip, deflate, br or none)',
      };
    case 'request.aborted':
    case 'request.size.invalid':
      return { code: 'VALIDATION_ERROR', message: 'Incomplete request body' };
    default:
      return undefined;
  }
}

const codeOfClientStatus: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
};

/**
 * Other 4xx errors of the Express stack (http-errors style `status`), such as the router's 400 for a
 * path parameter that is not valid percent-encoding: the client's fault, so never a 500. Their message
 * is sent only when the error says it is meant for clients (`expose`).
 */
function httpClientError(err: unknown): { code: ErrorCode; message: string } | undefined {
  if (!(err instanceof Error) || !('status' in err) || typeof err.status !== 'number') return undefined;
  const code = codeOfClientStatus[err.status];
  if (code === undefined) return undefined;
  if (err instanceof URIError) return { code, message: 'Malformed percent-encoding in the URL' };
  const exposed = 'expose' in err && err.expose === true;
  return { code, message: exposed ? err.message : `Request rejected (${err.status})` };
}
