#!/usr/bin/env node
// `npx @verdict/mcp`: the MCP server over stdio. stdout carries MCP messages only; everything else goes
// to stderr, which MCP clients show in their logs.
import { VERSION } from './generated/version';
import { settingsProblems, startStdioServer, USAGE } from './stdio';

const log = (line: string) => process.stderr.write(`${line}\n`);
const args = process.argv.slice(2);

if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
} else if (args.includes('--version')) {
  process.stdout.write(`${VERSION}\n`);
} else if (args.length > 0) {
  log(`verdict-mcp: unknown argument ${args[0]}; it is configured by its environment.\n\n${USAGE}`);
  process.exitCode = 2;
} else {
  const problems = settingsProblems(process.env);
  if (problems) {
    log(`verdict-mcp cannot start:\n${problems.map((p) => `  ${p}`).join('\n')}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    startStdioServer(process.env, log).catch((error: unknown) => {
      log(`verdict-mcp: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    });
  }
}
