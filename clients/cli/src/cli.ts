/**
 * The `verdict` command line: parses the arguments of each command (node:util's parseArgs, strict: an
 * unknown option is a usage error) and runs it. Every outcome is an exit code (exitCodes.ts); nothing is
 * thrown at the user but a one-line reason.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { bundleCommand } from './commands/bundle';
import { compareCommand } from './commands/compare';
import { gateCommand } from './commands/gate';
import { coverageCommand } from './commands/coverage';
import { importCommand, type Context } from './commands/import';
import { replayCommand } from './commands/replay';
import { runCommand } from './commands/run';
import { summaryCommand } from './commands/summary';
import { CliError, EXIT, usageError } from './exitCodes';
import { createOutput, type Streams } from './output';

declare const __VERSION__: string;

export const USAGE = `Usage: verdict <command> [options]

Commands:
  import junit <files or globs…>      Import JUnit XML (pytest, Surefire, gotestsum, jest-junit…) as one run
  import playwright <report.json…>    Import Playwright's JSON report with its screenshots, videos and traces
  coverage <file>                     Add coverage (coverage-summary.json, lcov.info, Cobertura XML) to a run
  run [options] -- <command…>         Run a test command and import the reports it writes
  bundle --run <id> | --case <id>     Print the debug bundle (JSON, or --markdown [--budget N])
  compare --run <id>                  What changed since the base run: new failures, fixed, slower…
  summary --run <id>                  Print the run's CI summary as Markdown (PR comment, step summary)
  gate --run <id>                     Wait for the run's quality gate; exit 0 passed, 1 failed, 3 unreachable
  replay <spool…>                     Send what a reporter kept in its spool while Verdict was unreachable

Connection (every command):
  --url <url>          Verdict's address (VERDICT_URL)
  --token <token>      a personal or project token (VERDICT_TOKEN)
  --project <id>       the project (VERDICT_PROJECT)

The run (import, coverage, run):
  --ci-run-id <id>     joins the run of this id (VERDICT_CI_RUN_ID; default: the CI build's, else the reports')
  --title, --branch, --environment, --commit <sha>, --build-url, --tag <tag> (repeatable)
  --coverage <file>    import, run: add this coverage report before the run finishes

run:        --junit <glob> (repeatable), --playwright <report.json>: the reports to import
            (default: every JUnit XML or Playwright JSON report the command wrote under this folder)
coverage:   --run <runId> (default: the run of the ciRunId), --finish
bundle:     --suite <file>, --attempt N, --platform <project>, --view full|brief|headline, --page N,
            --limit N, --markdown, --budget N
compare:    --base <runId> | --base-branch <name> (default: the run's base branch), --json
summary:    --base <runId> | --base-branch <name>
gate:       --timeout <seconds> (default 300), --on-unreachable pass|fail (default: exit 3)
run:        --on-unreachable pass|fail: when the project has gate rules, run exits by the gate
replay:     --keep (keep the spool once sent)

  --quiet              print results only
  -h, --help           this help;  -v, --version

Exit codes: 0 done; 1 (run) the command failed: verdict run exits with the command's own code, or by
the gate when the project has rules; (gate) the gate failed; 2 wrong usage or configuration;
3 Verdict unreachable or refusing.
`;

const CONNECTION = {
  url: { type: 'string' },
  token: { type: 'string' },
  project: { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

const RUN = {
  'ci-run-id': { type: 'string' },
  title: { type: 'string' },
  branch: { type: 'string' },
  environment: { type: 'string' },
  commit: { type: 'string' },
  'build-url': { type: 'string' },
  tag: { type: 'string', multiple: true },
  coverage: { type: 'string' },
} as const;

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
}

type Values = Record<string, string | boolean | string[] | undefined>;
const text = (values: Values, name: string) => values[name] as string | undefined;

function runFlags(values: Values) {
  return {
    url: text(values, 'url'),
    token: text(values, 'token'),
    project: text(values, 'project'),
    ciRunId: text(values, 'ci-run-id'),
    title: text(values, 'title'),
    branch: text(values, 'branch'),
    environment: text(values, 'environment'),
    commitSha: text(values, 'commit'),
    buildUrl: text(values, 'build-url'),
    tags: values.tag as string[] | undefined,
    coverage: text(values, 'coverage'),
  };
}

async function dispatch(argv: readonly string[], context: Context): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'import': {
      const [kind, ...args] = rest;
      if (kind !== 'junit' && kind !== 'playwright') throw usageError('verdict import: junit or playwright?');
      const { values, positionals } = parse(args, { ...CONNECTION, ...RUN });
      return importCommand(kind, positionals, runFlags(values), context);
    }
    case 'coverage': {
      const { values, positionals } = parse(rest, {
        ...CONNECTION,
        ...RUN,
        run: { type: 'string' },
        finish: { type: 'boolean' },
      });
      if (positionals.length > 1) throw usageError('verdict coverage: one coverage file at a time');
      return coverageCommand(
        positionals[0],
        { ...runFlags(values), run: text(values, 'run'), finish: Boolean(values.finish) },
        context,
      );
    }
    case 'run': {
      const split = rest.indexOf('--');
      const own = split === -1 ? rest : rest.slice(0, split);
      const wrapped = split === -1 ? [] : rest.slice(split + 1);
      const { values, positionals } = parse(own, {
        ...CONNECTION,
        ...RUN,
        junit: { type: 'string', multiple: true },
        playwright: { type: 'string', multiple: true },
        'on-unreachable': { type: 'string' },
      });
      if (positionals.length > 0)
        throw usageError(`verdict run: put the command after --: verdict run -- ${positionals.join(' ')}`);
      return runCommand(
        wrapped,
        {
          ...runFlags(values),
          junit: values.junit as string[] | undefined,
          playwright: values.playwright as string[] | undefined,
          onUnreachable: text(values, 'on-unreachable'),
        },
        context,
      );
    }
    case 'bundle': {
      const { values, positionals } = parse(rest, {
        ...CONNECTION,
        run: { type: 'string' },
        case: { type: 'string' },
        suite: { type: 'string' },
        attempt: { type: 'string' },
        platform: { type: 'string' },
        view: { type: 'string' },
        page: { type: 'string' },
        limit: { type: 'string' },
        markdown: { type: 'boolean' },
        budget: { type: 'string' },
      });
      if (positionals.length > 0) throw usageError(`verdict bundle: unexpected ${positionals[0]}`);
      return bundleCommand(
        { ...(values as Record<string, string>), markdown: Boolean(values.markdown) },
        context,
      );
    }
    case 'compare':
    case 'summary': {
      const { values, positionals } = parse(rest, {
        ...CONNECTION,
        run: { type: 'string' },
        base: { type: 'string' },
        'base-branch': { type: 'string' },
        ...(command === 'compare' ? { json: { type: 'boolean' } } : {}),
      });
      if (positionals.length > 0) throw usageError(`verdict ${command}: unexpected ${positionals[0]}`);
      const flags = {
        url: text(values, 'url'),
        token: text(values, 'token'),
        project: text(values, 'project'),
        run: text(values, 'run'),
        base: text(values, 'base'),
        baseBranch: text(values, 'base-branch'),
      };
      return command === 'compare'
        ? compareCommand({ ...flags, json: Boolean(values.json) }, context)
        : summaryCommand(flags, context);
    }
    case 'gate': {
      const { values, positionals } = parse(rest, {
        ...CONNECTION,
        run: { type: 'string' },
        timeout: { type: 'string' },
        'on-unreachable': { type: 'string' },
      });
      if (positionals.length > 0) throw usageError(`verdict gate: unexpected ${positionals[0]}`);
      return gateCommand(
        {
          url: text(values, 'url'),
          token: text(values, 'token'),
          project: text(values, 'project'),
          run: text(values, 'run'),
          timeout: text(values, 'timeout'),
          onUnreachable: text(values, 'on-unreachable'),
        },
        context,
      );
    }
    case 'replay': {
      const { values, positionals } = parse(rest, { ...CONNECTION, keep: { type: 'boolean' } });
      return replayCommand(positionals, { ...runFlags(values), keep: Boolean(values.keep) }, context);
    }
    default:
      throw usageError(command ? `unknown command ${command}` : 'no command given');
  }
}

/** Whether the process runs in CI: progress is then plain lines. */
const inCi = (env: NodeJS.ProcessEnv) =>
  Boolean(env.CI && env.CI !== 'false') || env.GITHUB_ACTIONS === 'true';

/**
 * Runs `verdict` with these arguments (without the node and script paths); resolves with the exit code.
 *
 * @example process.exitCode = await runCli(process.argv.slice(2), { env: process.env, cwd: process.cwd(), streams: process });
 */
export async function runCli(
  argv: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; streams: Streams },
): Promise<number> {
  const { streams } = options;
  // Options before the command word would hide it: only --help and --version may come first.
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    (argv.length === 0 ? streams.stderr : streams.stdout).write(USAGE);
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    streams.stdout.write(`${__VERSION__}\n`);
    return EXIT.ok;
  }
  const quiet =
    argv.includes('--quiet') && !argv.slice(argv.indexOf('--') + 1 || argv.length).includes('--quiet');
  const output = createOutput(streams, { quiet, ci: inCi(options.env) });
  try {
    return await dispatch(argv, { env: options.env, cwd: options.cwd, output });
  } catch (error) {
    output.done();
    if (error instanceof CliError) {
      streams.stderr.write(`verdict: ${error.message}\n`);
      if (error.exitCode === EXIT.usage)
        streams.stderr.write('Run verdict --help for the commands and options.\n');
      return error.exitCode;
    }
    streams.stderr.write(
      `verdict: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.verdict;
  }
}
