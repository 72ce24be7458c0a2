// @verdict/playwright-reporter: streams a Playwright run into Verdict (see README.md).
import { VerdictReporter } from './reporter';

export { VerdictReporter, type VerdictPlaywrightOptions } from './reporter';
export { resultItemOf, titlePathOf, relativeFile } from './results';
export default VerdictReporter;
