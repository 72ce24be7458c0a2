import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { VerdictApiError, type VerdictClient } from '@verdict/client';
import { z } from 'zod';
import type { TokenAccess } from './access';
import { describeFailure } from './errors';
import { VERSION } from './generated/version';
import { renderManualCase, renderManualRun } from './render/manual';
import { resultOf, renderRun } from './render/runs';
import { renderTestHistory } from './render/tests';
import { getAnalyticsSummary } from './tools/analytics';
import { compareRuns, getErrorGroup, listErrors } from './tools/analysis';
import { getFailureContext } from './tools/failures';
import {
  createManualCase,
  getManualCase,
  getManualRun,
  listManualCases,
  readManualCase,
  readManualRun,
  recordManualResult,
} from './tools/manual';
import { getGate, liftQuarantine, listQuarantine, quarantineTest } from './tools/quarantine';
import { getRun, listRuns, readRun } from './tools/runs';
import { findFlakyTests, getTestHistory, readTestCase, searchTests } from './tools/tests';
import type { ToolContext, VerdictTool } from './tools/tool';

/** Every tool, in the order a client lists them: the one list both forms of the server register. */
export const TOOLS: readonly VerdictTool[] = [
  listRuns,
  getRun,
  getFailureContext,
  compareRuns,
  listErrors,
  getErrorGroup,
  getTestHistory,
  findFlakyTests,
  searchTests,
  getAnalyticsSummary,
  getGate,
  listQuarantine,
  listManualCases,
  getManualCase,
  getManualRun,
  recordManualResult,
  createManualCase,
  quarantineTest,
  liftQuarantine,
];

/** The tools a token with this access may call: no write tool for a token that may not write. */
export function toolsFor(access: Pick<TokenAccess, 'canWrite'>): VerdictTool[] {
  return TOOLS.filter((tool) => access.canWrite || !tool.writes);
}

export interface VerdictMcpServerOptions {
  /** A client carrying the caller's token; every tool calls the public API through it. */
  verdict: VerdictClient;
  /** The project tools work in. */
  project: string;
  /** What the token may do there (readAccess). */
  access: TokenAccess;
}

function instructions(options: VerdictMcpServerOptions): string {
  const { access } = options;
  return [
    `Verdict is the test reporting and test management service of project "${access.projectName}" (${options.project}).`,
    'Automated tests: CI sends each test-suite execution as a run (an id and a counter such as #12) with one result per test attempt (retries are attempts).',
    'A test case (caseId) is one test identified across runs by its file and title path; its outcome in a run is passed, failed (every attempt failed), flaky (failed, then passed on a retry) or skipped.',
    'To debug a failing build: list_runs → get_run (failures grouped by error) → get_failure_context (every failing test; with a caseId one test in depth) → get_test_history (new, recurring or flaky). The prompt triage_run walks through it.',
    "Quality: a finished run is judged by the project's gate rules (get_gate); a quarantined test's known failures (list_quarantine) do not count against it.",
    'Manual testing: cases (TC-12) with steps, run in manual runs (RUN-3) where each case gets a result.',
    access.canWrite
      ? 'This token may also record manual results, create manual cases, and quarantine tests or lift their quarantine.'
      : `This token's role (${access.role ?? 'unknown'}) may only read.`,
    'Tools answer Markdown; large answers are cut to budgetChars, keeping every failing test named.',
  ].join('\n');
}

/** Runs a tool: its Markdown, or a tool error that says what went wrong (never a thrown error). */
async function runTool(tool: VerdictTool, input: unknown, context: ToolContext): Promise<CallToolResult> {
  try {
    return { content: [{ type: 'text', text: await tool.run(input, context) }] };
  } catch (error) {
    return { content: [{ type: 'text', text: describeFailure(error) }], isError: true };
  }
}

/** A resource read that failed, as the JSON-RPC error the client gets. */
function resourceError(error: unknown): McpError {
  const notFound = error instanceof VerdictApiError && error.status === 404;
  return new McpError(notFound ? ErrorCode.InvalidParams : ErrorCode.InternalError, describeFailure(error));
}

const variable = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? (value[0] ?? '') : (value ?? '');

function markdown(uri: URL, text: string): ReadResourceResult {
  return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
}

function registerResources(
  server: McpServer,
  context: (signal?: AbortSignal) => ToolContext,
  project: string,
): void {
  const read =
    (render: (variables: Record<string, string>, ctx: ToolContext) => Promise<string>) =>
    async (uri: URL, variables: Record<string, string | string[]>, extra: { signal: AbortSignal }) => {
      const values = Object.fromEntries(
        Object.entries(variables).map(([key, value]) => [key, variable(value)]),
      );
      try {
        return markdown(uri, await render(values, context(extra.signal)));
      } catch (error) {
        throw resourceError(error);
      }
    };

  server.registerResource(
    'run',
    new ResourceTemplate('verdict://projects/{projectId}/runs/{runId}', {
      // The latest runs of the project, so a client can offer them without a tool call.
      list: async (extra) => {
        const ctx = context(extra.signal);
        const runs = await ctx.verdict.listRuns({ limit: 20 }, { signal: extra.signal });
        return {
          resources: runs.data.map((run) => ({
            uri: `verdict://projects/${encodeURIComponent(project)}/runs/${encodeURIComponent(run.id)}`,
            name: `Run #${run.counter} ${resultOf(run)}${run.branch ? ` on ${run.branch}` : ''}`,
            description: `${run.stats.failed} failed, ${run.stats.flaky} flaky of ${run.stats.total} tests; started ${run.startedAt}`,
            mimeType: 'text/markdown',
          })),
        };
      },
    }),
    {
      title: 'Test run',
      description:
        'An automated test run: where it ran, its counts and its failures grouped by error (as get_run)',
      mimeType: 'text/markdown',
    },
    read(async ({ projectId, runId }, ctx) => renderRun(await readRun(runId!, ctx, projectId), 16_000)),
  );
  server.registerResource(
    'test-case',
    new ResourceTemplate('verdict://projects/{projectId}/test-cases/{caseId}', { list: undefined }),
    {
      title: 'Automated test case',
      description:
        'One automated test across runs: its counts, latest executions and where it failed (as get_test_history)',
      mimeType: 'text/markdown',
    },
    read(async ({ projectId, caseId }, ctx) =>
      renderTestHistory(await readTestCase(ctx, caseId!, { limit: 20, project: projectId! })),
    ),
  );
  server.registerResource(
    'manual-case',
    new ResourceTemplate('verdict://projects/{projectId}/manual-cases/{caseId}', { list: undefined }),
    {
      title: 'Manual test case',
      description: 'A manual test case (TC-n) with its steps (as get_manual_case)',
      mimeType: 'text/markdown',
    },
    read(async ({ projectId, caseId }, ctx) =>
      renderManualCase(await readManualCase(ctx, caseId!, projectId), 16_000),
    ),
  );
  server.registerResource(
    'manual-run',
    new ResourceTemplate('verdict://projects/{projectId}/manual-runs/{runId}', { list: undefined }),
    {
      title: 'Manual test run',
      description: 'A manual run (RUN-n): its progress and its first 200 cases (as get_manual_run)',
      mimeType: 'text/markdown',
    },
    read(async ({ projectId, runId }, ctx) =>
      renderManualRun(await readManualRun(ctx, runId!, projectId), { page: 1, limit: 200 }),
    ),
  );
}

function registerPrompts(
  server: McpServer,
  context: (signal?: AbortSignal) => ToolContext,
  project: string,
): void {
  server.registerPrompt(
    'triage_run',
    {
      title: 'Triage a test run',
      description:
        'Walk from a failed test run to each distinct failure: its cause, the tests it hits, whether it is new, recurring or flaky, and what to do. Without runId: the latest failed run.',
      argsSchema: {
        runId: z
          .string()
          .trim()
          .min(1)
          .max(500)
          .optional()
          .describe('The run to triage (default: the latest failed run)'),
      },
    },
    async ({ runId }, extra) => {
      const ctx = context(extra.signal);
      try {
        const id =
          runId ??
          (await ctx.verdict.listRuns({ status: 'failed', limit: 1 }, { signal: extra.signal })).data[0]?.id;
        if (id === undefined) {
          return {
            messages: [
              {
                role: 'user',
                content: {
                  type: 'text',
                  text: 'Verdict has no failed run in this project: there is nothing to triage.',
                },
              },
            ],
          };
        }
        const summary = renderRun(await readRun(id, ctx), 12_000);
        const steps = [
          `Triage Verdict test run ${id} (project ${project}). The goal: one entry per distinct failure, not per failing test.`,
          '',
          `1. Read the run summary attached below: its failures are grouped by error message.`,
          `2. Call get_failure_context with runId=${id} to list every failing test by error (failed, or flaky: failed then passed on a retry).`,
          `3. For each distinct error, pick one test and call get_failure_context with its caseId and runId=${id}: read the error, stack, source snippet, the steps around the failure and the artifacts (screenshots, traces).`,
          '4. Call get_test_history with that caseId: did it pass before (a new failure, likely caused by the change under test), fail before too (recurring), or alternate (flaky)?',
          '5. Look at the code the stack and steps point to, in this repository.',
          '6. Report, one entry per distinct failure: the error in one line; the tests it hits; new, recurring or flaky; the likely cause (product code, test code, test data or environment) with the evidence; the next action (a fix, with the file to change; quarantine a flaky test; or rerun with the retry command). End with what to do first.',
          'Do not stop at the first failure, and do not guess past the evidence: say what is unknown.',
        ].join('\n');
        return {
          messages: [
            { role: 'user', content: { type: 'text', text: steps } },
            {
              role: 'user',
              content: {
                type: 'resource',
                resource: {
                  uri: `verdict://projects/${encodeURIComponent(project)}/runs/${encodeURIComponent(id)}`,
                  mimeType: 'text/markdown',
                  text: summary,
                },
              },
            },
          ],
        };
      } catch (error) {
        throw resourceError(error);
      }
    },
  );
}

/**
 * The Verdict MCP server for one token and project: the tools that token may call, the resources and the
 * triage prompt. Connect it to a transport (stdio, or Streamable HTTP per request).
 *
 * @example const server = createVerdictMcpServer({ verdict, project, access: await readAccess(verdict) }); await server.connect(new StdioServerTransport());
 */
export function createVerdictMcpServer(options: VerdictMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'verdict', title: 'Verdict', version: VERSION },
    { instructions: instructions(options) },
  );
  const context = (signal?: AbortSignal): ToolContext => ({
    verdict: options.verdict,
    project: options.project,
    access: options.access,
    ...(signal ? { signal } : {}),
  });
  for (const tool of toolsFor(options.access)) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input as z.ZodObject,
        annotations: {
          title: tool.title,
          readOnlyHint: !tool.writes,
          destructiveHint: false,
          idempotentHint: tool.idempotent,
          openWorldHint: false,
        },
      },
      (input: unknown, extra: { signal: AbortSignal }) => runTool(tool, input, context(extra.signal)),
    );
  }
  registerResources(server, context, options.project);
  registerPrompts(server, context, options.project);
  return server;
}
