// @verdict/mcp: the Model Context Protocol server of Verdict (see README.md), over stdio (the
// `verdict-mcp` command) or Streamable HTTP (createMcpHttpHandler, which the Verdict gateway serves at /mcp).
export { createVerdictMcpServer, toolsFor, TOOLS, type VerdictMcpServerOptions } from './server';
export { createMcpHttpHandler, PROJECT_HEADER, type McpHttpOptions } from './http';
export { startStdioServer, StdioSettings } from './stdio';
export { readAccess, type TokenAccess } from './access';
export { describeFailure } from './errors';
export type { ToolContext, VerdictTool } from './tools/tool';
export { VERSION } from './generated/version';
