/**
 * HTTP helpers of the session tests: one call with a cookie, a CSRF token or a bearer token, and a
 * sign-in that returns the cookie to send back.
 */
import { ErrorEnvelope, SessionInfo } from '@verdict/contracts';

export interface Answer {
  status: number;
  headers: Headers;
  body: { success: boolean; data?: unknown; error?: { code: string; message: string } };
}

export async function call(
  url: string,
  method: string,
  options: { cookie?: string; csrf?: string; bearer?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['body'],
  };
}

/** Signs in; returns the cookie to send back and the session's CSRF token. */
export async function signIn(
  base: string,
  body: unknown,
): Promise<{ cookie: string; session: SessionInfo; setCookie: string }> {
  const answer = await call(`${base}/session`, 'POST', { body });
  if (answer.status !== 201)
    throw new Error(`sign-in answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return {
    cookie: setCookie.split(';')[0] ?? '',
    session: SessionInfo.parse(answer.body.data),
    setCookie,
  };
}

export const codeOf = (error: Answer) => ErrorEnvelope.parse(error.body).error.code;
