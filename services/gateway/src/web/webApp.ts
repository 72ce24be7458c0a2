import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import compression from 'compression';
import express, { Router, type Response } from 'express';
import { TRACE_VIEWER_PATH } from '@verdict/contracts';
import { NotFoundError, type Logger } from '@verdict/platform';

/**
 * The web app (web/, built by Vite into static files) and Playwright's trace viewer, served by the gateway
 * in both modes (docs/web.md):
 *
 * - `/assets/…`: the app's hashed bundles, cached for a year (a new build has new names); every file of
 *   the app and the viewer is sent compressed when the browser accepts it.
 * - The app's pages (`/`, `/sign-in`, `/projects/…`) all answer its index.html, never cached, so a deep
 *   link from a CI log opens the page it names. Any other path keeps its behaviour: the API prefixes,
 *   /admin/v1, /healthz and the rest answer as before, an unknown path 404 with the error envelope.
 * - `/trace-viewer/`: the trace viewer that playwright-core ships as static files, so a trace opens on
 *   this server (`links.traceViewerUrl`) without reaching trace.playwright.dev.
 */

/** The paths the app's router answers; kept in step with the route.ts of each web/src/features folder. */
const UI_PATH = /^\/(?:sign-in\/?|projects(?:\/.*)?)?$/;

export interface WebAppOptions {
  /** The built app: a folder with index.html and assets/ (VERDICT_WEB_DIR). */
  dir: string;
  logger: Logger;
  /** VERDICT_PUBLIC_URL: artifacts and downloads are fetched from there, which may not be this origin. */
  publicUrl: string;
}

/** Where playwright-core keeps its trace viewer; null when the installed version does not ship one. */
export function traceViewerDir(): string | null {
  try {
    const root = path.dirname(require.resolve('playwright-core/package.json'));
    const dir = path.join(root, 'lib', 'vite', 'traceViewer');
    return existsSync(path.join(dir, 'index.html')) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * What the app's page may load: its own scripts only; styles inline too (Mantine sets CSS variables in
 * style attributes); images, videos and downloads from this origin or the public URL.
 */
function contentSecurityPolicy(publicUrl: string): string {
  const origin = new URL(publicUrl).origin;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${origin}`,
    `media-src 'self' blob: ${origin}`,
    `connect-src 'self' ${origin}`,
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A path segment as the app's client writes it in a URL: nothing that needs escaping in an attribute. */
const SEGMENT = '[A-Za-z0-9._~%-]+';
const RUN_PAGE = new RegExp(`^/projects/(${SEGMENT})/runs/(${SEGMENT})/?$`);

/**
 * The data a page asks for first, announced in its HTML (`<link rel="preload" as="fetch">`) so that the
 * browser fetches it while the app's code loads, and the app's own request (same URL, same credentials)
 * takes that answer: the run page of a big run lists its failures that much sooner. Kept in step with the
 * run page's request (web/src/api/queries.ts, runQuery); a mismatch costs one request, never an error.
 */
export function preloadsOf(pagePath: string): string[] {
  const run = RUN_PAGE.exec(pagePath);
  return run ? [`/api/public/v1/${run[1]}/test-runs/${run[2]}?include=specs`] : [];
}

function withPreloads(html: string, pagePath: string): string {
  const links = preloadsOf(pagePath).map(
    (href) => `<link rel="preload" href="${href}" as="fetch" crossorigin="anonymous">`,
  );
  return links.length === 0 ? html : html.replace('</head>', `${links.join('')}</head>`);
}

function sendIndex(res: Response, html: string, policy: string): void {
  res
    .status(200)
    .type('html')
    .set({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': policy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
    })
    .send(html);
}

/**
 * The router of the app and the trace viewer; mount it at `/` after the API, before the final 404.
 *
 * @example app.use(createWebAppRouter({ dir: config.webDir, logger, publicUrl }));
 */
export function createWebAppRouter(options: WebAppOptions): Router {
  const router = Router();
  const log = options.logger.child({ component: 'web' });
  // The app's and the viewer's files go compressed (gzip, or brotli when asked): the first page's
  // JavaScript is a quarter of its size on the wire. API answers are left as they are.
  router.use(compression());
  const viewer = traceViewerDir();
  if (viewer) {
    router.use(TRACE_VIEWER_PATH, express.static(viewer, { index: 'index.html', maxAge: '1h' }));
  } else {
    log.warn('playwright-core ships no trace viewer here: trace links cannot open on this server');
  }

  const indexFile = path.join(options.dir, 'index.html');
  if (!existsSync(indexFile)) {
    log.warn({ dir: options.dir }, 'the web app is not built: its pages answer 404');
    router.get(UI_PATH, () => {
      throw new NotFoundError(
        `The web app is not built (no ${indexFile}): npm start builds it, or set VERDICT_WEB_DIR`,
      );
    });
    return router;
  }
  // Read once: a new build comes with a restart (npm start rebuilds a stale app before it starts).
  const html = readFileSync(indexFile, 'utf8');
  const policy = contentSecurityPolicy(options.publicUrl);
  router.use(
    '/assets',
    express.static(path.join(options.dir, 'assets'), { index: false, immutable: true, maxAge: '365d' }),
  );
  // The few files beside index.html (the icon): any other path falls through to the 404 envelope.
  router.use(express.static(options.dir, { index: false, maxAge: '1h' }));
  router.get(UI_PATH, (req, res) => sendIndex(res, withPreloads(html, req.path), policy));
  log.info({ dir: options.dir }, 'web app served');
  return router;
}
