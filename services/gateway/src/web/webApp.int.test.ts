import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorEnvelope } from '@verdict/contracts';
import { CLUSTERS, type GatewayCluster, type RunningGateway } from '../testing';

const embedded = CLUSTERS[0];
if (!embedded) throw new Error('no embedded cluster');

const INDEX =
  '<!doctype html><html><head></head><body><div id="root"></div><script type="module" src="/assets/app-1a2b.js"></script></body></html>';

function builtApp(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-web-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log("app")');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

async function notFound(url: string, method = 'GET') {
  const response = await fetch(url, { method });
  expect(response.status).toBe(404);
  return ErrorEnvelope.parse(await response.json()).error;
}

describe('the web app served by the gateway', () => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let dir: string;

  beforeAll(async () => {
    dir = builtApp();
    cluster = await embedded[1]();
    gateway = await cluster.replica([], { webDir: dir });
  });
  afterAll(async () => {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    '/',
    '/sign-in',
    '/projects',
    '/projects/p1/runs',
    '/projects/p1/runs/r1/suites/tests%2Fcart.spec.ts',
    '/projects/p1/runs/r1/tests/c1?attempt=1&project=firefox',
  ])(
    'when a page of the app is asked for (%s), then the app answers, never cached, with its content security policy',
    async (page) => {
      const response = await fetch(`${gateway.url}${page}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toMatch(
        /default-src 'self'.*script-src 'self';.*frame-ancestors 'none'/,
      );
      expect(await response.text()).toBe(INDEX);
    },
  );

  it("when a run's page is asked for, then its HTML announces the run's data as a preload, so the browser fetches it while the app's code loads", async () => {
    const page = await (await fetch(`${gateway.url}/projects/p1/runs/r-9`)).text();
    expect(page).toContain(
      '<link rel="preload" href="/api/public/v1/p1/test-runs/r-9?include=specs" as="fetch" crossorigin="anonymous"></head>',
    );
    for (const other of ['/projects/p1/runs', '/projects/p1/runs/r-9/tests/c1']) {
      expect(await (await fetch(`${gateway.url}${other}`)).text()).not.toContain('rel="preload"');
    }
    // Ids are written as the URL carries them, percent-encoded: nothing can close the attribute.
    const odd = await (await fetch(`${gateway.url}/projects/p%22%3E/runs/r1`)).text();
    expect(odd).toContain('href="/api/public/v1/p%22%3E/test-runs/r1?include=specs"');
  });

  it("when the app's hashed bundles are asked for, then they are served for a year; one that does not exist is the 404 envelope", async () => {
    const bundle = await fetch(`${gateway.url}/assets/app-1a2b.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await notFound(`${gateway.url}/assets/app-9z9z.js`)).code).toBe('NOT_FOUND');
    expect((await fetch(`${gateway.url}/favicon.svg`)).status).toBe(200);
  });

  it('when a path is not a page of the app, then everything else keeps its behaviour: the API, the admin API, health, and the 404 envelope; a page asked with another method than GET is 405 with Allow', async () => {
    expect((await notFound(`${gateway.url}/api/public/v1/p1/no-such-family`)).code).toBe('NOT_FOUND');
    expect((await notFound(`${gateway.url}/admin/v1/no-such-thing`)).code).toBe('NOT_FOUND');
    expect((await notFound(`${gateway.url}/nowhere`)).code).toBe('NOT_FOUND');
    const posted = await fetch(`${gateway.url}/projects`, { method: 'POST' });
    expect({ status: posted.status, allow: posted.headers.get('allow') }).toEqual({
      status: 405,
      allow: 'GET, HEAD',
    });
    expect(ErrorEnvelope.parse(await posted.json()).error.code).toBe('METHOD_NOT_ALLOWED');
    const health = await fetch(`${gateway.url}/healthz`);
    expect(await health.json()).toEqual({ success: true, data: { status: 'ok' } });
    const unauthorized = await fetch(`${gateway.url}/api/public/v1/p1/token-info`);
    expect(unauthorized.status).toBe(401);
  });

  it("when the trace viewer is asked for, then playwright-core's viewer is served from this server, its service worker beside it", async () => {
    const viewer = await fetch(`${gateway.url}/trace-viewer/?trace=https%3A%2F%2Fexample.com%2Ft.zip`);
    expect(viewer.status).toBe(200);
    expect(await viewer.text()).toContain('<title>Playwright Trace Viewer</title>');
    const worker = await fetch(`${gateway.url}/trace-viewer/sw.bundle.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/javascript/);
  });
});

describe('the gateway without a built web app', () => {
  it('when a page of the app is asked for, then it answers 404 with the envelope, saying how to build the app', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'verdict-web-empty-'));
    const cluster = await embedded[1]();
    try {
      const gateway = await cluster.replica([], { webDir: empty });
      const error = await notFound(`${gateway.url}/projects/p1/runs`);
      expect(error.message).toMatch(/web app is not built.*npm start builds it/);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      await cluster.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
