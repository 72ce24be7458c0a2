import type { Server } from 'node:http';
import { Router } from 'express';
import request from 'supertest';
import {
  createHttpApp,
  createMemoryKeyValue,
  createMemoryRateLimiter,
  ManualClock,
  sendData,
  silentLogger,
  type KeyValue,
  type RateLimiter,
} from '@verdict/platform';
import { API_PREFIXES } from '../app';
import type { Role } from '../identity/directory';
import { createAccessChain, createTokenInfoRouter } from './accessChain';
import { DEFAULT_INGEST_LIMIT_PER_MINUTE } from './rateLimits';
import { FakeIdentityDirectory } from './fakeIdentityDirectory';

/**
 * FOR TESTS ONLY: a gateway with the real access chain in front of stand-in routes that echo what the
 * chain attached, over a FakeIdentityDirectory holding one small world:
 *
 * - organization `org-1` with projects `p1` and `p2`; organization `org-2` with project `p3`;
 * - users `u-owner`, `u-admin`, `u-member`, `u-viewer` with those roles in `org-1`; `u-outsider` in none.
 */

export const NOW = '2026-03-01T12:00:00.000Z';

export function seededDirectory(): FakeIdentityDirectory {
  const directory = new FakeIdentityDirectory();
  directory.addProject({ id: 'p1', name: 'Checkout', organizationId: 'org-1' });
  directory.addProject({ id: 'p2', name: 'Search', organizationId: 'org-1' });
  directory.addProject({ id: 'p3', name: 'Elsewhere', organizationId: 'org-2' });
  const roles: Role[] = ['owner', 'admin', 'member', 'viewer'];
  for (const role of roles) directory.setRole(`u-${role}`, 'org-1', role);
  return directory;
}

export interface GatewayDeps {
  directory: FakeIdentityDirectory;
  rateLimiter?: RateLimiter;
  kv?: KeyValue;
  clock?: ManualClock;
  ingestLimitPerMinute?: number;
}

export interface TestGateway {
  server: Server;
  clock: ManualClock;
  /** A supertest client bound to the listening server (one server for many requests). */
  http: ReturnType<typeof request>;
  close(): Promise<void>;
}

/**
 * Stand-ins for the services' routes: they answer 200 with the identity the chain attached, or, with an
 * `x-test-status` header, that status (a service refusing the request after the chain let it through).
 */
function echoRoutes(): Router {
  const router = Router();
  router.all('/:projectId/*rest', (req, res) => {
    const status = Number(req.headers['x-test-status'] ?? 200);
    if (status !== 200) {
      res.status(status).json({ success: false, error: { code: 'VALIDATION_ERROR', message: 'refused' } });
      return;
    }
    sendData(res, { access: res.locals.access ?? null });
  });
  router.all('/whoami', (_req, res) => {
    sendData(res, { tokenId: res.locals.principal?.token.id ?? null });
  });
  return router;
}

/**
 * Starts a gateway on an ephemeral port, with memory adapters unless others are given.
 *
 * @example const gateway = await startGateway({ directory: seededDirectory() });
 */
export async function startGateway(deps: GatewayDeps): Promise<TestGateway> {
  const clock = deps.clock ?? new ManualClock(NOW);
  const rateLimiter = deps.rateLimiter ?? createMemoryRateLimiter();
  const kv = deps.kv ?? createMemoryKeyValue({ clock });
  const logger = silentLogger();
  const { app, finish } = createHttpApp({ logger, service: 'gateway' });
  const chain = createAccessChain({
    directory: deps.directory,
    rateLimiter,
    kv,
    clock,
    logger,
    ingestLimitPerMinute: deps.ingestLimitPerMinute ?? DEFAULT_INGEST_LIMIT_PER_MINUTE,
  });
  const tokenInfo = createTokenInfoRouter({ directory: deps.directory });
  const routes = echoRoutes();
  for (const prefix of API_PREFIXES) app.use(prefix, chain, tokenInfo, routes);
  finish(app);

  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    server,
    clock,
    http: request(server),
    async close() {
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      if (deps.rateLimiter === undefined) await rateLimiter.close();
      if (deps.kv === undefined) await kv.close();
    },
  };
}

/** The spec's error envelope with `code`. */
export function errorEnvelope(code: string) {
  return { success: false, error: { code, message: expect.any(String) } };
}

/** Sends `count` requests one after another; returns the statuses. */
export async function repeat(count: number, send: () => Promise<request.Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await send()).status);
  return statuses;
}
