import { execFileSync } from 'node:child_process';
import type { TestStep } from '@verdict/contracts';
import { failureWindow, firstLine, flattenSteps, stripAnsi, summarizeError } from './failureWindow';
import { traceViewerUrl, uiUrl } from './links';
import { retryCommand, retryCommandForTests, shellQuote } from './retryCommand';

const step = (title: string, extra: Partial<TestStep> = {}): TestStep => ({
  title,
  durationMs: 10,
  ...extra,
});
const failing = (title: string, message = `${title} failed`, extra: Partial<TestStep> = {}): TestStep =>
  step(title, { error: { message }, ...extra });
const titles = (steps: readonly { title: string }[]) => steps.map((s) => s.title);

describe('failureWindow', () => {
  // a, b(b1, b2(b2a ✗ inside b2 ✗)), c, d, e  →  flat: a b b1 b2 b2a c d e
  const tree: TestStep[] = [
    step('a'),
    failing('b', 'b failed', {
      steps: [step('b1'), failing('b2', 'b2 failed', { steps: [failing('b2a')] })],
    }),
    step('c'),
    step('d'),
    step('e'),
  ];

  it('when a nested step failed, then the innermost failed step is `failed`, with 3 steps before and 2 after', () => {
    const window = failureWindow(tree);
    expect(window.failed).toMatchObject({ title: 'b2a', depth: 2, error: 'b2a failed' });
    expect(titles(window.before)).toEqual(['b', 'b1', 'b2']);
    expect(titles(window.after)).toEqual(['c', 'd']);
  });

  it('when other sizes are asked for, then the window has them', () => {
    const window = failureWindow(tree, { before: 1, after: 3 });
    expect(titles(window.before)).toEqual(['b2']);
    expect(titles(window.after)).toEqual(['c', 'd', 'e']);
  });

  it('when the failure is the first step, then nothing is before it', () => {
    const window = failureWindow([failing('first'), step('second')]);
    expect(window.before).toEqual([]);
    expect(window.failed?.title).toBe('first');
    expect(titles(window.after)).toEqual(['second']);
  });

  it('when two sibling steps failed (soft assertions), then the first innermost one is `failed`', () => {
    const window = failureWindow([step('a'), failing('soft 1'), step('b'), failing('soft 2')]);
    expect(window.failed?.title).toBe('soft 1');
    expect(titles(window.after)).toEqual(['b', 'soft 2']);
  });

  it('when no step failed, then `failed` is null and `before` holds the last steps that ran', () => {
    const window = failureWindow([step('a'), step('b', { steps: [step('b1')] }), step('c')]);
    expect(window).toMatchObject({ failed: null, after: [] });
    expect(titles(window.before)).toEqual(['b', 'b1', 'c']);
  });

  it('when there are no steps, then the window is empty', () => {
    expect(failureWindow([])).toEqual({ before: [], failed: null, after: [] });
  });

  it('when a step error is coloured and multi-line, then the window shows its first line without colours', () => {
    const window = failureWindow([failing('x', '\n\u001b[31mError: expected 1\u001b[39m\n\nat line 3')]);
    expect(window.failed).toEqual({
      title: 'x',
      category: null,
      depth: 0,
      durationMs: 10,
      location: null,
      error: 'Error: expected 1',
    });
  });
});

describe('flattenSteps', () => {
  it('when steps nest, then they come parent first with their depth', () => {
    const flat = flattenSteps([step('a', { steps: [step('a1', { steps: [step('a1x')] })] }), step('b')]);
    expect(flat.map(({ step: s, depth }) => [s.title, depth])).toEqual([
      ['a', 0],
      ['a1', 1],
      ['a1x', 2],
      ['b', 0],
    ]);
  });
});

describe('error text', () => {
  it('when a message has colour codes and leading blank lines, then firstLine returns the first real line', () => {
    expect(firstLine('\n  \n\u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m).toBe()\nmore')).toBe(
      'expect(received).toBe()',
    );
  });

  it('when a line is very long, then firstLine cuts it and says so with an ellipsis', () => {
    const line = firstLine('x'.repeat(1000), 50);
    expect(line).toHaveLength(50);
    expect(line.endsWith('…')).toBe(true);
  });

  it('when the cut falls inside an emoji, then firstLine keeps no half of it', () => {
    // 49 code units before the ellipsis: 24 emoji and the first half of the 25th.
    const line = firstLine('😀'.repeat(1000), 50);
    expect(line).toBe(`${'😀'.repeat(24)}…`);
    expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('when an OSC hyperlink is in the text, then stripAnsi removes its escape codes', () => {
    expect(stripAnsi('\u001b]8;;https://x.dev\u0007link\u001b]8;;\u0007')).toBe('link');
  });

  it('when an error is summarized, then it keeps its location', () => {
    const location = { file: 'a.ts', line: 3, column: 1 };
    expect(summarizeError({ message: 'Boom\nstack', location })).toEqual({ message: 'Boom', location });
    expect(summarizeError({ message: 'Boom' })).toEqual({ message: 'Boom', location: null });
  });
});

describe('retryCommand', () => {
  it('when the framework is Playwright, then the command targets file:line and the project', () => {
    expect(
      retryCommand({
        framework: 'playwright',
        file: 'path/to/spec.ts',
        line: 42,
        project: 'chromium',
        titlePath: ['t'],
      }),
    ).toBe('npx playwright test path/to/spec.ts:42 --project=chromium');
  });

  it('when a Playwright test has no line, then its title is grepped', () => {
    expect(
      retryCommand({
        framework: '@playwright/test',
        file: 'a.spec.ts',
        titlePath: ['login', 'works (fast)'],
      }),
    ).toBe("npx playwright test a.spec.ts -g 'login works \\(fast\\)'");
  });

  it('when the framework is jest, then -t matches the full name exactly', () => {
    expect(
      retryCommand({ framework: 'jest', file: 'src/a.test.ts', titlePath: ['math', 'adds 1 + 2'] }),
    ).toBe("npx jest src/a.test.ts -t '^math adds 1 \\+ 2$'");
  });

  it('when the framework is vitest, then vitest run is used', () => {
    expect(retryCommand({ framework: 'vitest', file: 'a.test.ts', titlePath: ['ok'] })).toBe(
      "npx vitest run a.test.ts -t '^ok$'",
    );
  });

  it('when the framework is pytest, then the node id is quoted', () => {
    expect(
      retryCommand({ framework: 'pytest', file: 'tests/test_a.py', titlePath: ['TestA', 'test_b[1-2]'] }),
    ).toBe("pytest 'tests/test_a.py::TestA::test_b[1-2]'");
  });

  it('when the framework is JUnit, then maven runs Class#method', () => {
    expect(
      retryCommand({
        framework: 'junit',
        file: 'src/test/java/com/acme/LoginTest.java',
        titlePath: ['com.acme.LoginTest', 'rejects()'],
      }),
    ).toBe("mvn '-Dtest=LoginTest#rejects' test");
  });

  it('when the framework is go, then -run is anchored per subtest level', () => {
    expect(
      retryCommand({
        framework: 'go',
        file: 'pkg/auth/login_test.go',
        titlePath: ['TestLogin/bad password'],
      }),
    ).toBe("go test -run '^TestLogin$/^bad_password$' ./pkg/auth");
  });

  it('when the framework is not reported, then the file extension decides when it can', () => {
    expect(retryCommand({ framework: null, file: 't/test_x.py', titlePath: ['test_y'] })).toBe(
      'pytest t/test_x.py::test_y',
    );
    expect(retryCommand({ framework: undefined, file: 'x_test.go', titlePath: ['TestX'] })).toBe(
      "go test -run '^TestX$' .",
    );
  });

  it('when Surefire names the file by its dotted class, then -Dtest gets the class, not its first package', () => {
    expect(retryCommand({ framework: 'junit', file: 'com.acme.FooTest', titlePath: ['brokenTest'] })).toBe(
      "mvn '-Dtest=FooTest#brokenTest' test",
    );
  });

  it('when gotestsum splits a subtest into titles, then -run still anchors every level', () => {
    expect(
      retryCommand({ framework: 'go', file: 'github.com/acme/pkg/math', titlePath: ['TestAdd', 'sub_case'] }),
    ).toBe("go test -run '^TestAdd$/^sub_case$' github.com/acme/pkg/math");
  });

  it('when failing tests of a page span files and platforms, then one Playwright command names each once', () => {
    const targets = [
      { file: 'tests/cart.spec.ts', line: 40, project: 'chromium', titlePath: ['adds'] },
      { file: 'tests/cart.spec.ts', project: 'firefox', titlePath: ['removes'] },
      { file: 'tests/login.spec.ts', line: 7, project: 'webkit', titlePath: ['signs in'] },
      { file: 'tests/login.spec.ts', line: 7, project: 'chromium', titlePath: ['signs in'] },
    ].map((target) => ({ framework: 'playwright', ...target }));
    // The whole cart file runs (one of its tests has no line), so its line is not listed apart.
    expect(retryCommandForTests('playwright', targets)).toBe(
      'npx playwright test tests/cart.spec.ts tests/login.spec.ts:7 --project=chromium --project=firefox --project=webkit',
    );
    expect(
      retryCommandForTests('playwright', [
        ...targets,
        { framework: 'playwright', file: 'tests/x.spec.ts', line: 1 },
      ]),
    ).not.toContain('--project');
  });

  it('when no framework is reported but a TypeScript test ran on a project, then Playwright reruns it', () => {
    expect(
      retryCommand({ framework: null, file: 'a.spec.ts', line: 4, project: 'chromium', titlePath: ['x'] }),
    ).toBe('npx playwright test a.spec.ts:4 --project=chromium');
    expect(retryCommand({ framework: null, file: 'a.spec.ts', titlePath: ['x'] }).startsWith('# ')).toBe(
      true,
    );
  });

  it('when the framework is the JUnit report format, then the file tells which runner wrote it', () => {
    expect(retryCommand({ framework: 'junit', file: 'tests/test_a.py', titlePath: ['test_b'] })).toBe(
      'pytest tests/test_a.py::test_b',
    );
    expect(
      retryCommand({
        framework: 'junit',
        file: 'com.acme.LoginTest',
        titlePath: ['com.acme.LoginTest', 'ok'],
      }),
    ).toBe("mvn '-Dtest=LoginTest#ok' test");
    expect(
      retryCommand({ framework: 'junit', file: 'src/a.test.ts', titlePath: ['ok'] }).startsWith('# '),
    ).toBe(true);
  });

  it('when the runner is unknown, then the command is a comment whose words are still quoted', () => {
    const command = retryCommand({ framework: 'mocha', file: 'a.js', line: 3, titlePath: ['it $(reboot)'] });
    expect(command.startsWith('# ')).toBe(true);
    expect(command).toContain("'it $(reboot)'");
    expect(command).not.toMatch(/\n/);
  });

  it('when several tests are rerun at run scope, then one command lists them', () => {
    const targets = [
      { framework: 'playwright', file: 'a.spec.ts', line: 1, project: 'chromium' },
      { framework: 'playwright', file: 'b.spec.ts', line: 2, project: 'firefox' },
    ];
    expect(retryCommandForTests('playwright', targets)).toBe(
      'npx playwright test a.spec.ts:1 b.spec.ts:2 --project=chromium --project=firefox',
    );
    expect(retryCommandForTests('playwright', [])).toBe('npx playwright test');
    expect(
      retryCommandForTests('go', [
        { framework: 'go', file: 'a/x_test.go', titlePath: ['TestA/sub'] },
        { framework: 'go', file: 'b/y_test.go', titlePath: ['TestB'] },
      ]),
    ).toBe("go test -run '^(?:TestA|TestB)$' ./a ./b");
  });
});

describe('shell quoting', () => {
  const nasty = `it's "$(touch /tmp/verdict-pwned)" \`id\` $HOME; rm -rf ~ \\ \n echo next`;

  it('when a word has only safe characters, then it stays bare', () => {
    expect(shellQuote('tests/a.spec.ts:42')).toBe('tests/a.spec.ts:42');
  });

  it('when a word has quotes, $ or backticks, then it is single-quoted with embedded quotes escaped', () => {
    expect(shellQuote(`it's $x`)).toBe(`'it'\\''s $x'`);
  });

  // The one test here that runs a process: only a real shell proves that no title can inject.
  it('when a shell parses the command, then the title arrives as one literal argument', () => {
    const command = retryCommand({ framework: 'jest', file: 'a b/it.test.ts', titlePath: ['suite', nasty] });
    expect(command.startsWith('npx jest ')).toBe(true);
    const argv = execFileSync('sh', ['-c', `printf '%s\\0' ${command.slice('npx jest '.length)}`], {
      encoding: 'utf8',
    })
      .split('\0')
      .slice(0, -1);
    const escaped = `suite ${nasty}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(argv).toEqual(['a b/it.test.ts', '-t', `^${escaped}$`]);
  });
});

describe('links', () => {
  it('when a case is linked, then the URL is under the run with the attempt', () => {
    expect(uiUrl('https://verdict.example.com/', 'p1', 'r1', { caseId: 'c/1', attempt: 2 })).toBe(
      'https://verdict.example.com/projects/p1/runs/r1/tests/c%2F1?attempt=2',
    );
  });

  it('when a case is linked on one of its platforms, then the URL names the platform with the attempt', () => {
    expect(
      uiUrl('http://localhost:8080', 'p1', 'r1', { caseId: 'c1', attempt: 1, project: 'mobile safari' }),
    ).toBe('http://localhost:8080/projects/p1/runs/r1/tests/c1?attempt=1&project=mobile+safari');
  });

  it('when a suite or the run is linked, then the URL names it', () => {
    expect(uiUrl('http://localhost:8080', 'p1', 'r1', { suiteId: 's1' })).toBe(
      'http://localhost:8080/projects/p1/runs/r1/suites/s1',
    );
    expect(uiUrl('http://localhost:8080', 'p 1', 'r1')).toBe('http://localhost:8080/projects/p%201/runs/r1');
  });

  it('when there is no trace, then traceViewerUrl is null; else the trace URL is encoded into the viewer this Verdict serves', () => {
    expect(traceViewerUrl(null, 'https://v.example')).toBeNull();
    expect(traceViewerUrl('https://v.example/a/t?sig=1&exp=2', 'https://v.example/')).toBe(
      'https://v.example/trace-viewer/?trace=https%3A%2F%2Fv.example%2Fa%2Ft%3Fsig%3D1%26exp%3D2',
    );
    expect(traceViewerUrl('https://v/t', 'https://ci.example/verdict')).toBe(
      'https://ci.example/verdict/trace-viewer/?trace=https%3A%2F%2Fv%2Ft',
    );
  });
});
