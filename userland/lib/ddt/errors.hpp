// aoe-ddt: error types; each maps to one of the tool's exit codes.
#pragma once

#include <stdexcept>

namespace aoe::ddt {

enum ExitCode : int { kExitOk = 0, kExitIoError = 1, kExitUsage = 2, kExitRefused = 3 };

// Bad command line or a target that cannot be used as asked: exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Writing would destroy something in use: exit 3.
struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The system failed us (open, io_setup...): exit 1.
struct IoError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace aoe::ddt
