/**
 * The copy-paste shell commands that rerun a bundle's tests locally (`links.retryCommand`, each item's
 * `retryCommand`), per runner: Playwright, Jest, Vitest, pytest, Maven, Go.
 */

/** What to rerun: one test (with `titlePath` or `line`), or a whole file (with neither). */
export interface RetryTarget {
  /** The run's framework name as the reporter sent it (`playwright`, `jest`, `pytest`, …); null if unknown. */
  framework: string | null | undefined;
  file: string;
  line?: number | null;
  project?: string | null;
  titlePath?: readonly string[];
}

type Runner = 'playwright' | 'jest' | 'vitest' | 'pytest' | 'maven' | 'go' | 'unknown';

/**
 * A copy-paste shell command that reruns one test (or one file) locally. Every value from a report is
 * shell-quoted, and titles that become patterns are regex-escaped, so a title with quotes, `$` or
 * backticks can neither break the command nor run anything.
 *
 * @example retryCommand({ framework: 'playwright', file: 'tests/login.spec.ts', line: 42, project: 'chromium' })
 * // 'npx playwright test tests/login.spec.ts:42 --project=chromium'
 */
export function retryCommand(target: RetryTarget): string {
  return retryCommandForTests(target.framework, [target]);
}

/**
 * One command that reruns several tests (run scope: the failing tests of a page); without targets, the
 * whole suite.
 *
 * @example retryCommandForTests('playwright', items.map((item) => ({ ...item, framework: 'playwright' })))
 */
export function retryCommandForTests(
  framework: string | null | undefined,
  targets: readonly RetryTarget[],
): string {
  const runner = runnerOf(framework, targets[0]);
  switch (runner) {
    case 'playwright':
      return playwrightCommand(targets);
    case 'jest':
      return jsRunnerCommand(['npx', 'jest'], targets);
    case 'vitest':
      return jsRunnerCommand(['npx', 'vitest', 'run'], targets);
    case 'pytest':
      return command(['pytest', ...unique(targets.map(pytestNodeId))]);
    case 'maven':
      return mavenCommand(targets);
    case 'go':
      return goCommand(targets);
    case 'unknown':
      return unknownRunnerCommand(framework, targets);
  }
}

/**
 * The runner behind a framework name, else what the file's extension says for sure. `junit` names a
 * report format, not a runner (pytest and go write it too), so the file decides first; a JUnit report
 * whose file is neither Python, Go nor JavaScript is taken for Java, where it is most common. Without a
 * framework, a JavaScript or TypeScript test with a `project` is Playwright's: projects are its notion.
 */
function runnerOf(framework: string | null | undefined, target: RetryTarget | undefined): Runner {
  const name = (framework ?? '').toLowerCase();
  const file = target?.file;
  const byName = runnerByName(name);
  if (byName !== undefined) return byName;
  const byFile = file === undefined ? undefined : runnerByFile(file);
  if (byFile !== undefined) return byFile;
  const javaScript = /\.[cm]?[jt]sx?$/.test(file ?? '');
  if (name.includes('junit') && !javaScript) return 'maven';
  if (name === '' && javaScript && target?.project) return 'playwright';
  return 'unknown';
}

function runnerByName(name: string): Runner | undefined {
  if (name.includes('playwright')) return 'playwright';
  if (name.includes('vitest')) return 'vitest';
  if (name.includes('jest')) return 'jest';
  if (name.includes('pytest')) return 'pytest';
  if (['maven', 'surefire', 'testng'].some((word) => name.includes(word))) return 'maven';
  if (name === 'go' || name.startsWith('go ') || name.includes('gotest') || name.includes('go-test')) {
    return 'go';
  }
  return undefined;
}

function runnerByFile(file: string): Runner | undefined {
  if (file.endsWith('.py')) return 'pytest';
  if (file.endsWith('_test.go')) return 'go';
  if (file.endsWith('.java') || file.endsWith('.kt')) return 'maven';
  return undefined;
}

/**
 * A file named without a line reruns all of it, so its `file:line` entries go. Each platform is a
 * `--project` (Playwright takes several); when a target has none, every project runs.
 */
function playwrightCommand(targets: readonly RetryTarget[]): string {
  const wholeFiles = new Set(targets.filter(({ line }) => !line).map(({ file }) => file));
  const locations = unique(
    targets.map(({ file, line }) => (line && !wholeFiles.has(file) ? `${file}:${line}` : file)),
  );
  const projects = unique(targets.map(({ project }) => project ?? ''));
  const project = projects.every(Boolean) ? projects.map((name) => `--project=${name}`) : [];
  const target = targets.length === 1 ? targets[0] : undefined;
  // Without a line, `file:line` cannot pick the test; the title can (`-g` is a regex).
  // Playwright greps the title with the file path in front, so the pattern is not anchored.
  const grep =
    target && !target.line && target.titlePath?.length ? ['-g', escapeRegex(target.titlePath.join(' '))] : [];
  return command(['npx', 'playwright', 'test', ...locations, ...grep, ...project]);
}

/** Jest and Vitest match `-t` against the describe titles and the test title joined by spaces. */
function jsRunnerCommand(prefix: string[], targets: readonly RetryTarget[]): string {
  const files = unique(targets.map(({ file }) => file));
  const target = targets.length === 1 ? targets[0] : undefined;
  const name = target?.titlePath?.length ? ['-t', exactPattern(target.titlePath.join(' '))] : [];
  return command([...prefix, ...files, ...name]);
}

/** `path::Class::test`, the node id pytest prints; a file alone reruns the file. */
function pytestNodeId({ file, titlePath }: RetryTarget): string {
  return titlePath?.length ? [file, ...titlePath].join('::') : file;
}

/** Surefire's `-Dtest=Class#method+method,Other#method`; the class is the last title before the method. */
function mavenCommand(targets: readonly RetryTarget[]): string {
  const methodsByClass = new Map<string, string[]>();
  for (const target of targets) {
    const path = target.titlePath ?? [];
    const className = simpleClassName(
      path.length > 1 ? (path[path.length - 2] ?? '') : javaClassOfFile(target.file),
    );
    const methods = methodsByClass.get(className) ?? [];
    const method = path.length > 0 ? (path[path.length - 1] ?? '').replace(/\(.*\)$/, '') : '';
    if (method) methods.push(method);
    methodsByClass.set(className, methods);
  }
  const selectors = [...methodsByClass].map(([className, methods]) =>
    methods.length ? `${className}#${unique(methods).join('+')}` : className,
  );
  return command(['mvn', `-Dtest=${selectors.join(',')}`, 'test']);
}

/**
 * `go test -run '^TestA$/^sub_case$' ./pkg`: anchored per level; go writes spaces of subtests as `_`.
 * Several tests rerun their top-level functions, since go splits `-run` at slashes into levels.
 */
function goCommand(targets: readonly RetryTarget[]): string {
  const packages = unique(targets.map(({ file }) => goPackage(file)));
  const paths = targets.flatMap(({ titlePath }) => (titlePath?.length ? [goTestLevels(titlePath)] : []));
  const single = paths.length === 1 ? paths[0] : undefined;
  const topLevel = unique(paths.map((levels) => levels[0] ?? ''));
  const pattern = single
    ? single.map((level) => `^${escapeRegex(level)}$`).join('/')
    : `^(?:${topLevel.map(escapeRegex).join('|')})$`;
  const run = paths.length === 0 ? [] : ['-run', pattern];
  return command(['go', 'test', ...run, ...packages]);
}

/**
 * `['TestA/sub case']` or `['TestA', 'sub case']` (gotestsum's name split at its slashes) →
 * ['TestA', 'sub_case']: every title is a level of the test's name.
 */
function goTestLevels(titlePath: readonly string[]): string[] {
  return titlePath
    .join('/')
    .split('/')
    .map((level) => level.replace(/\s/g, '_'));
}

/** `pkg/foo/foo_test.go` → `./pkg/foo`; an import path (go-junit-report's classname) stays as it is. */
function goPackage(file: string): string {
  if (!file.endsWith('.go')) return file;
  const slash = file.lastIndexOf('/');
  if (slash === -1) return '.';
  const dir = file.slice(0, slash);
  return dir.startsWith('.') || dir.startsWith('/') ? dir : `./${dir}`;
}

/**
 * No runner known: a shell comment naming what to rerun. Its parts are shell-quoted all the same, since
 * interactive zsh does not treat `#` as a comment and would expand `$(…)` in the words after it.
 */
function unknownRunnerCommand(framework: string | null | undefined, targets: readonly RetryTarget[]): string {
  const shown = targets
    .slice(0, 3)
    .flatMap(({ file, line, titlePath }) => [
      line ? `${file}:${line}` : file,
      ...(titlePath?.length ? [titlePath.join(' › ')] : []),
    ]);
  const more = targets.length > 3 ? ['and', `${targets.length - 3}`, 'more'] : [];
  const reason = framework
    ? ['framework', framework, 'is', 'not', 'known:']
    : ['test', 'framework', 'not', 'reported:'];
  const what = shown.length > 0 ? shown : ['the', 'suite'];
  return `# ${command([...reason, 'rerun', ...what, ...more, 'with', 'your', 'test', 'runner'])}`;
}

function simpleClassName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * The class a Java test file holds: `src/test/java/com/acme/LoginTest.java` → `LoginTest`; a file that is a
 * class name (Surefire's report names no path) is that class: `com.acme.LoginTest` → `LoginTest`.
 */
function javaClassOfFile(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  return simpleClassName(base.replace(/\.(?:java|kt)$/, ''));
}

/** A regex matching exactly `text`. */
function exactPattern(text: string): string {
  return `^${escapeRegex(text)}$`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Words joined into one shell command, each quoted as needed. */
function command(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/**
 * A word for a POSIX shell (bash, zsh, sh): bare when it is made of characters no shell treats specially,
 * else single-quoted, where nothing is special except `'` itself, written as `'\''`. Newlines stay
 * inside the quotes, so they cannot start a second command.
 *
 * @example shellQuote("it's $HOME") // `'it'\''s $HOME'`
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
