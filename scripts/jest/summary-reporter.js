// Keeps the run's counts so that scripts/run.cjs can end the run with one plain line any CI reads:
// "Tests: N passed, N failed, N skipped" (jest's own summary says "N passed, N total").
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.VERDICT_TEST_SUMMARY_FILE;
    if (!file) return;
    const summary = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    fs.writeFileSync(file, JSON.stringify(summary));
  }
}
module.exports = SummaryReporter;
