// The main of the unit tests: doctest's, with one check more. The doctest files of tests/
// are one program, `build/tests/unit/unit_tests`, which meson runs once per file with a filter on
// the source file (`--source-file=*/test_NAME.cpp`, tests/unit/meson.build), so that each file
// is still its own test with its own timeout. A filter that matches no test case (a file
// renamed, a pattern mistyped) fails instead of passing with nothing run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

// Counts the test cases that passed the filters; tells nothing else.
unsigned selected_test_cases = 0;

struct SelectedCount : doctest::IReporter {
    explicit SelectedCount(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& stats) override {
        selected_test_cases = stats.numTestCasesPassingFilters;
    }
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("selected_count", 1, SelectedCount);

} // namespace

int main(int argc, char** argv) {
    doctest::Context context(argc, argv);
    const int status = context.run();
    if (context.shouldExit()) { // --help, --list-test-cases, ...
        return status;
    }
    if (status == 0 && selected_test_cases == 0) {
        std::fputs("unit_tests: no test case matches the filters given\n", stderr);
        return 1;
    }
    return status;
}
