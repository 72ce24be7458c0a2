// @verdict/jest-reporter: streams a Jest run into Verdict (see README.md).
import { VerdictJestReporter } from './reporter';

export { VerdictJestReporter, type VerdictJestOptions } from './reporter';
export { resultItemsOf, errorOfMessage, type JestFileResult, type JestAssertion } from './results';
export default VerdictJestReporter;
