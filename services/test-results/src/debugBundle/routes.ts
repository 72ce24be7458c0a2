/**
 * GET /{projectId}/debug-bundle (spec §4.2): the contract's route with its handler. The gateway has
 * checked the token's project scope; the queries still read only the path's project, so a run or case
 * of another project answers its scope's 404.
 */
import { debugBundleRoutes, paginationOf, type Pagination } from '@verdict/contracts';
import { bindRoutes, reply, type BoundRoute } from '@verdict/platform';
import { renderMarkdown } from './markdown';
import { parseDebugBundleQuery, rawQueryOf, type DebugBundleRequest } from './params';
import { runBundle } from './run/query';
import type { BundleSources } from './sources';
import { suiteBundle } from './suite/query';
import { testBundle } from './test/query';
import type { DebugBundle } from './types';
import { applyView } from './views';

export type DebugBundleRoutesOptions = BundleSources;

/** A bundle cut to its view, with its page at run and suite scope. */
interface Answer {
  data: DebugBundle;
  pagination?: Pagination;
}

async function answerOf(
  sources: BundleSources,
  projectId: string,
  request: DebugBundleRequest,
): Promise<Answer> {
  switch (request.scope) {
    case 'run': {
      const { bundle, total } = await runBundle(sources, projectId, request);
      return {
        data: applyView(bundle, request.view),
        pagination: paginationOf(request.page, request.limit, total),
      };
    }
    case 'suite': {
      const { bundle, total } = await suiteBundle(sources, projectId, request);
      return {
        data: applyView(bundle, request.view),
        pagination: paginationOf(request.page, request.limit, total),
      };
    }
    case 'test':
      return { data: applyView(await testBundle(sources, projectId, request), request.view) };
  }
}

function replyOf(request: DebugBundleRequest, answer: Answer) {
  if (request.as === 'markdown') {
    // Spec §4.2: the Markdown body is the document itself, not an envelope.
    const markdown = renderMarkdown(answer.data, {
      ...(request.budgetChars === undefined ? {} : { budgetChars: request.budgetChars }),
      ...(answer.pagination === undefined ? {} : { pagination: answer.pagination }),
    });
    return reply.body('text/markdown; charset=utf-8', markdown);
  }
  // Run and suite scopes are pages of failing tests; the test scope is one bundle.
  return answer.pagination === undefined ? answer.data : reply.page(answer.data, answer.pagination);
}

/**
 * The debug bundle route, path relative to the service root.
 *
 * @example registerRoutes(router, createDebugBundleRoutes({ db, schema: RUNS_READ_MODEL, publicUrl, signArtifactUrl }));
 */
export function createDebugBundleRoutes(options: DebugBundleRoutesOptions): BoundRoute[] {
  return bindRoutes(debugBundleRoutes, {
    'get /{projectId}/debug-bundle': async (_input, { projectId, req }) => {
      // The raw URL, not req.query: rule 8 (a parameter sent twice) must not depend on Express's parser.
      const request = parseDebugBundleQuery(rawQueryOf(req.originalUrl));
      return replyOf(request, await answerOf(options, projectId, request));
    },
  });
}
