// duet's version. CMake reads it from here (project(duet VERSION ...)), so this is the one place
// to change it; CHANGELOG.md says what each version holds.
//
//   #if DUET_VERSION_MAJOR == 0 && DUET_VERSION_MINOR < 2
//   ...
//   #endif
//   std::puts(duet::version_string);   // "0.1.0"
#pragma once

#define DUET_VERSION_MAJOR 0
#define DUET_VERSION_MINOR 1
#define DUET_VERSION_PATCH 0

// Spelled from the three numbers above; the helper macros are undefined again after use.
#define DUET_DETAIL_TEXT(x) #x
#define DUET_DETAIL_VERSION(a, b, c) DUET_DETAIL_TEXT(a) "." DUET_DETAIL_TEXT(b) "." DUET_DETAIL_TEXT(c)
namespace duet {
/// "MAJOR.MINOR.PATCH"; `duet-check --version` and `--duet_help` print it.
inline constexpr const char version_string[] =
    DUET_DETAIL_VERSION(DUET_VERSION_MAJOR, DUET_VERSION_MINOR, DUET_VERSION_PATCH);
}  // namespace duet
#undef DUET_DETAIL_VERSION
#undef DUET_DETAIL_TEXT
