/**
 * GET /{projectId}/debug-bundle (spec §4.2): the contract's route with its handler. The gateway has
 * checked the token's project scope; the queries still read only the path's project, so a run or case
 * of another project answers its scope's 404.
 */
import type { Request, Response } from 'express';
import {
  debugBundleRoutes,
  paginationOf,
  ProjectReadPath,
  type DebugBundleEnvelope,
  type Pagination,
} from '@verdict/contracts';
import { parseParams, type ApiRoute } from '@verdict/platform';
import { renderMarkdown } from './markdown';
import { parseDebugBundleQuery, rawQueryOf, type DebugBundleRequest } from './params';
import { runBundle, suiteBundle, testBundle, type BundleSources } from './query';
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

function send(res: Response, request: DebugBundleRequest, answer: Answer): void {
  if (request.as === 'markdown') {
    // Spec §4.2: the Markdown body is the document itself, not an envelope.
    const markdown = renderMarkdown(answer.data, {
      ...(request.budgetChars === undefined ? {} : { budgetChars: request.budgetChars }),
      ...(answer.pagination === undefined ? {} : { pagination: answer.pagination }),
    });
    res.status(200).type('text/markdown; charset=utf-8').send(markdown);
    return;
  }
  const body: DebugBundleEnvelope = {
    success: true,
    data: answer.data,
    ...(answer.pagination === undefined ? {} : { pagination: answer.pagination }),
  };
  res.status(200).json(body);
}

/**
 * The debug bundle route, path relative to the service root.
 *
 * @example registerRoutes(router, createDebugBundleRoutes({ db, schema: RUNS_READ_MODEL, publicUrl, signArtifactUrl }));
 */
export function createDebugBundleRoutes(options: DebugBundleRoutesOptions): ApiRoute[] {
  const handle = async (req: Request, res: Response) => {
    const { projectId } = parseParams(ProjectReadPath, req);
    // The raw URL, not req.query: rule 8 (a parameter sent twice) must not depend on Express's parser.
    const request = parseDebugBundleQuery(rawQueryOf(req.originalUrl));
    send(res, request, await answerOf(options, projectId, request));
  };
  const handlers: Record<string, ApiRoute['handlers']> = { 'get /{projectId}/debug-bundle': [handle] };
  return debugBundleRoutes.map((spec) => {
    const route = handlers[`${spec.method} ${spec.path}`];
    if (!route) throw new Error(`No handler for ${spec.method} ${spec.path}`);
    return { ...spec, handlers: route };
  });
}
