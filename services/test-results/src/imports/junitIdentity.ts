/**
 * Which test a JUnit testcase is, by its report's dialect (junit.ts lists each dialect's rules): its file,
 * its title path and its platform.
 */
import { ValidationError } from '@verdict/platform';
import { clip, LIMITS } from './resultItems';
import type { XmlElement } from './xml';

export type JUnitDialect = 'playwright' | 'surefire' | 'pytest' | 'gotestsum' | 'jest' | 'generic';

export interface SuiteContext {
  /** Names of the enclosing suites, outermost first (the root `testsuites` included when named). */
  names: string[];
  file?: string;
  hostname?: string;
  startedAt?: string;
}

export interface CollectedCase {
  element: XmlElement;
  suite: SuiteContext;
  /** Output written at the level of the enclosing suite, not by this case. */
  suiteStdout: string[];
  suiteStderr: string[];
}

export interface Identity {
  file: string;
  titlePath: string[];
  project?: string;
  location?: { file: string; line: number };
}

export function identify(collected: CollectedCase, dialect: JUnitDialect): Identity {
  const { element, suite } = collected;
  const name = element.attributes.name ?? '';
  const classname = element.attributes.classname ?? '';
  if (name.trim() === '') {
    throw new ValidationError(`A testcase in suite "${suite.names.join(' › ')}" has no name`);
  }
  const identity = identityFor(dialect, name, classname, collected);
  const file = clip(identity.file, LIMITS.file);
  const line = Number(element.attributes.line || Number.NaN);
  return {
    ...identity,
    file,
    // jest-junit's default "{classname} {title}" leaves a leading space on top-level tests.
    titlePath: identity.titlePath.map((title) => clip(title.trim(), LIMITS.title)),
    location: Number.isInteger(line) && line >= 0 ? { file, line } : undefined,
  };
}

function identityFor(
  dialect: JUnitDialect,
  name: string,
  classname: string,
  collected: CollectedCase,
): Identity {
  switch (dialect) {
    case 'playwright':
      return playwrightIdentity(name, classname, collected.suite);
    case 'surefire':
      return surefireIdentity(name, classname, collected.suite);
    case 'pytest':
      return pytestIdentity(name, classname, collected);
    case 'gotestsum':
      return { file: classname || innermost(collected.suite), titlePath: name.split('/') };
    case 'jest':
    case 'generic':
      return genericIdentity(name, classname, collected);
  }
}

const TITLE_SEPARATOR = ' › ';

function playwrightIdentity(name: string, classname: string, suite: SuiteContext): Identity {
  const project = suite.hostname || undefined;
  // With includeProjectInTestName, Playwright prefixes the name with "[project] ".
  const prefix = project ? `[${project}] ` : undefined;
  const title = prefix && name.startsWith(prefix) ? name.slice(prefix.length) : name;
  return {
    file: classname || innermost(suite),
    titlePath: title.split(TITLE_SEPARATOR),
    project: project ? clip(project, LIMITS.project) : undefined,
  };
}

function surefireIdentity(name: string, classname: string, suite: SuiteContext): Identity {
  const [outerClass = '', ...nestedClasses] = (classname || innermost(suite)).split('$');
  return { file: outerClass, titlePath: [...nestedClasses, name] };
}

function pytestIdentity(name: string, classname: string, collected: CollectedCase): Identity {
  const segments = classname.split('.').filter((segment) => segment !== '');
  // PEP 8: modules are lower case and classes capitalised; pytest collects classes named Test*.
  const firstClass = segments.findIndex((segment) => /^[A-Z]/.test(segment));
  const moduleSegments = firstClass === -1 ? segments : segments.slice(0, firstClass);
  const classes = firstClass === -1 ? [] : segments.slice(firstClass);
  const derivedFile =
    moduleSegments.length > 0 ? `${moduleSegments.join('/')}.py` : innermost(collected.suite);
  return { file: ownFile(collected) ?? derivedFile, titlePath: [...classes, name] };
}

function genericIdentity(name: string, classname: string, collected: CollectedCase): Identity {
  const suiteName = innermost(collected.suite);
  const file =
    ownFile(collected) ??
    (looksLikePath(classname) ? classname : undefined) ??
    (looksLikePath(suiteName) ? suiteName : undefined) ??
    (suiteName || classname || 'unknown');
  const classTitles =
    classname === '' || classname === file || classname === name ? [] : classname.split(TITLE_SEPARATOR);
  return { file, titlePath: [...classTitles, ...name.split(TITLE_SEPARATOR)] };
}

export function ownFile({ element, suite }: CollectedCase): string | undefined {
  return element.attributes.file || suite.file || undefined;
}

export function innermost(suite: SuiteContext): string {
  return suite.names.at(-1) ?? '';
}

const SOURCE_EXTENSIONS = new Set([
  ...'js jsx mjs cjs ts tsx mts cts py rb go java kt kts scala groovy'.split(' '),
  ...'cs fs vb php rs swift dart ex exs erl c cc cpp feature'.split(' '),
]);

export function looksLikePath(value: string): boolean {
  if (value.includes('/') || value.includes('\\')) return !value.includes(' ');
  const extension = value.slice(value.lastIndexOf('.') + 1);
  return value.includes('.') && SOURCE_EXTENSIONS.has(extension);
}
