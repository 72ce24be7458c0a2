/**
 * The id of a test case, computed the same everywhere: the services, and the reporters, which bundle this
 * module (it imports nothing but node:crypto).
 */
import { createHash } from 'node:crypto';

/** What names a test case: its file and its title path. */
export interface TestIdentity {
  file: string;
  titlePath: readonly string[];
}

/** The identity of a test case across runs: (file, titlePath); `project` is one of its platforms. */
export function testCaseKey(item: TestIdentity): string {
  return JSON.stringify([item.file, item.titlePath]);
}

/**
 * The id of a test case across runs, the one its test page is addressed by (`GET /{projectId}/test-cases/
 * {caseId}`): the first 32 hex digits of the sha256 of its testCaseKey. Test results, analytics and the
 * manual cases' linked tests all derive it here, so the same test has one id everywhere.
 *
 * @example const caseId = testCaseIdOf({ file: 'tests/cart.spec.ts', titlePath: ['Cart', 'adds'] });
 */
export function testCaseIdOf(item: TestIdentity): string {
  return createHash('sha256').update(testCaseKey(item)).digest('hex').slice(0, 32);
}
