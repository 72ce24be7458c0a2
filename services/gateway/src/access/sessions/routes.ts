import express, { Router, type Request, type Response } from 'express';
import { SESSION_COOKIE, SignInRequest, type SessionInfo } from '@verdict/contracts';
import {
  ForbiddenError,
  parseBody,
  sendData,
  UnauthorizedError,
  ValidationError,
  type Clock,
  type RateLimiter,
} from '@verdict/platform';
import type { IdentityDirectory, TokenRecord } from '../../identity/directory';
import type { Accounts } from '../../identity/module';
import { principalOf } from '../authorize';
import { sessionCookieOf, verifyToken } from '../authenticate';
import { limitByIp } from '../rateLimits';
import type { SessionStore, WebSession } from './sessionStore';

/**
 * The web app's sign-in, its "who am I" and its sign-out, under each API prefix (docs/web.md):
 *
 * - `POST /session` exchanges a personal access token (or a one-time sign-in code) for a session cookie.
 *   It comes before the access chain (the caller has no credentials yet) but draws on the same per-IP
 *   bucket, and checks the token exactly as a bearer token is checked.
 * - `GET /session` and `DELETE /session` come after the access chain, so a session (or a bearer token)
 *   reaches them only through it.
 */

export interface SessionRoutesOptions {
  directory: IdentityDirectory;
  accounts: Accounts;
  sessions: SessionStore;
  rateLimiter: RateLimiter;
  clock: Clock;
  /** VERDICT_PUBLIC_URL: an https one marks the cookie Secure even when a proxy speaks http to us. */
  publicUrl: string;
}

const SIGN_IN_BODY_LIMIT = '16kb';

function setSessionCookie(req: Request, res: Response, value: string, publicUrl: string): void {
  res.cookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure || publicUrl.startsWith('https:'),
    path: '/',
  });
}

/** The token a sign-in names: its cleartext, or the code of a one-time link issued for it. */
async function signInToken(
  body: SignInRequest,
  { directory, sessions, clock }: SessionRoutesOptions,
): Promise<TokenRecord> {
  if (body.token !== undefined) return verifyToken(body.token, { directory, clock });
  const tokenId = await sessions.redeemSignInCode(body.code ?? '');
  const expired = () =>
    new UnauthorizedError('This sign-in link was used already or has expired: sign in with your token');
  if (tokenId === null) throw expired();
  const record = await directory.findToken(tokenId);
  if (record === null || record.revokedAt !== null) throw expired();
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= clock.now().getTime()) throw expired();
  return record;
}

/**
 * What a session (or a bearer token) is and reaches: its person, its token, and each project with its
 * organization and the person's role there.
 */
export async function describeSession(
  token: TokenRecord,
  session: WebSession | undefined,
  { directory, accounts, sessions }: Pick<SessionRoutesOptions, 'directory' | 'accounts' | 'sessions'>,
): Promise<SessionInfo> {
  const projects = (await Promise.all(token.projectIds.map((id) => directory.findProject(id)))).filter(
    (project) => project !== null,
  );
  const organizationIds = [...new Set(projects.map((project) => project.organizationId))];
  const [user, names, roles] = await Promise.all([
    accounts.findUser(token.ownerUserId),
    accounts.organizationNames(organizationIds),
    Promise.all(
      organizationIds.map(
        async (id) =>
          [
            id,
            token.ownerRoles ? (token.ownerRoles[id] ?? null) : await directory.roleOf(token.ownerUserId, id),
          ] as const,
      ),
    ),
  ]);
  const roleOf = new Map(roles);
  return {
    user: user
      ? { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName }
      : null,
    token: { id: token.id, name: token.name, kind: token.kind, expiresAt: token.expiresAt },
    projects: projects
      .map((project) => ({
        id: project.id,
        name: project.name,
        organizationId: project.organizationId,
        organizationName: names.get(project.organizationId) ?? project.organizationId,
        role: roleOf.get(project.organizationId) ?? null,
      }))
      .sort((a, b) => a.organizationName.localeCompare(b.organizationName) || a.name.localeCompare(b.name)),
    csrfToken: session?.csrfToken ?? null,
    idleTimeoutSeconds: session ? Math.round(sessions.idleTimeoutMs / 1000) : null,
  };
}

/**
 * `POST /session`; mount it under each API prefix before the access chain.
 *
 * @example api.use(createSignInRouter(options)); api.use(accessChain); api.use(createSessionRouter(options));
 */
export function createSignInRouter(options: SessionRoutesOptions): Router {
  const router = Router();
  router.post(
    '/session',
    limitByIp({ rateLimiter: options.rateLimiter }),
    express.json({ limit: SIGN_IN_BODY_LIMIT }),
    async (req, res) => {
      const body = parseBody(SignInRequest, req);
      const token = await signInToken(body, options);
      if (token.kind !== 'personal') {
        throw new ForbiddenError(
          'Sign in with a personal access token (svc_pat_…): project tokens are for CI and scripts',
        );
      }
      // Signing in again in the same browser replaces the session it had.
      const previous = sessionCookieOf(req);
      const earlier = previous === undefined ? null : await options.sessions.find(previous);
      if (earlier) await options.sessions.end(earlier);
      const { cookieValue, session } = await options.sessions.open({
        tokenId: token.id,
        userId: token.ownerUserId,
      });
      setSessionCookie(req, res, cookieValue, options.publicUrl);
      sendData(res, await describeSession(token, session, options), 201);
    },
  );
  return router;
}

/**
 * `GET /session` and `DELETE /session`; mount them under each API prefix after the access chain.
 */
export function createSessionRouter(options: SessionRoutesOptions): Router {
  const router = Router();
  router.get('/session', async (_req, res) => {
    const { token, session } = principalOf(res);
    sendData(res, await describeSession(token, session, options));
  });
  router.delete('/session', async (req, res) => {
    const { session } = principalOf(res);
    if (session === undefined) {
      throw new ValidationError(
        'This request carries a bearer token, not a session: there is nothing to sign out',
      );
    }
    await options.sessions.end(session);
    res.clearCookie(SESSION_COOKIE, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure || options.publicUrl.startsWith('https:'),
      path: '/',
    });
    sendData(res, { signedOut: true as const });
  });
  return router;
}
