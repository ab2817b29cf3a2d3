// Prints the plain closing line 'tests: N passed, N failed, N skipped' that CI reads. Jest's
// own summary reporter always runs after custom reporters, so the line is written at exit
// to stay last.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.once('exit', () => {
      process.stderr.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    });
  }
}
module.exports = SummaryReporter;
