import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createVerdictClient } from '@verdict/client';
import { z } from 'zod';
import { readAccess } from './access';
import { describeFailure } from './errors';
import { VERSION } from './generated/version';
import { createVerdictMcpServer, toolsFor } from './server';
import { MCP_CLIENT_SETTINGS } from './settings';

/** The settings of `npx @verdict/mcp`, from its environment. */
export const StdioSettings = z.object({
  VERDICT_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s) address of the Verdict server, e.g. http://localhost:8080',
    })
    .describe('The Verdict server'),
  VERDICT_TOKEN: z
    .string({ error: 'is required: a personal (svc_pat_…) or project (svcp_…) token' })
    .trim()
    .min(1, { error: 'is required: a personal (svc_pat_…) or project (svcp_…) token' }),
  VERDICT_PROJECT: z
    .string({ error: 'is required: the id of the Verdict project' })
    .trim()
    .min(1, { error: 'is required: the id of the Verdict project' }),
});
export type StdioSettings = z.infer<typeof StdioSettings>;

export const USAGE = `verdict-mcp ${VERSION}: the Model Context Protocol server of Verdict, over stdio.

Environment:
  VERDICT_URL      the Verdict server, e.g. http://localhost:8080
  VERDICT_TOKEN    a personal (svc_pat_…) or project (svcp_…) token
  VERDICT_PROJECT  the project id

Add it to an MCP client as the command "npx -y @verdict/mcp" with those variables.
`;

/** Why the server cannot start, in one line per problem; null when the settings are fine. */
export function settingsProblems(env: NodeJS.ProcessEnv): string[] | null {
  const parsed = StdioSettings.safeParse(env);
  if (parsed.success) return null;
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

/**
 * Starts the stdio server: checks the token against Verdict (a refused token stops the start with the
 * API's answer on stderr), then serves MCP on stdin/stdout until stdin closes.
 *
 * @example await startStdioServer(process.env);
 */
export async function startStdioServer(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  const settings = StdioSettings.parse(env);
  const verdict = createVerdictClient({
    ...MCP_CLIENT_SETTINGS,
    baseUrl: settings.VERDICT_URL,
    token: settings.VERDICT_TOKEN,
    project: settings.VERDICT_PROJECT,
  });
  const access = await readAccess(verdict).catch((error: unknown) => {
    throw new Error(`Verdict refused to start the MCP server: ${describeFailure(error)}`);
  });
  const server = createVerdictMcpServer({ verdict, project: settings.VERDICT_PROJECT, access });
  await server.connect(new StdioServerTransport());
  log(
    `verdict-mcp ${VERSION}: project "${access.projectName}" (${settings.VERDICT_PROJECT}) on ${verdict.apiBaseUrl}, role ${access.role ?? 'unknown'}, ${toolsFor(access).length} tools`,
  );
}
