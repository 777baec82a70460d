// The parser fuzz check shared by the libFuzzer target and the corpus/mutation driver.
#pragma once

#include <cstddef>
#include <cstdint>

/// Feeds `data` to parse_history under every Format. Only ParseError may come out of a parse;
/// a parsed history must keep the parsers' invariants and round-trip through
/// write_duet_history. Anything else aborts (with a message on stderr). Returns 0.
int duet_fuzz_parse(const std::uint8_t* data, std::size_t size);
