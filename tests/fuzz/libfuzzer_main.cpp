// libFuzzer entry point for the history parsers (clang -fsanitize=fuzzer,address,undefined).
#include "parse_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { return duet_fuzz_parse(data, size); }
