#include "engine/isolation/death.hpp"

#include <csignal>
#include <cstring>

#include "execute/hang_clock.hpp"  // scale_note
#include "show/text.hpp"

namespace duet::detail {
namespace {

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "a segmentation fault (SIGSEGV)";
    case SIGBUS: return "a bus error (SIGBUS)";
    case SIGFPE: return "an arithmetic fault (SIGFPE)";
    case SIGILL: return "an illegal instruction (SIGILL)";
    case SIGABRT: return "an abort (SIGABRT)";
    case SIGKILL: return "SIGKILL (from outside: the out-of-memory killer?)";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "a trap (SIGTRAP)";
    default: return nullptr;
  }
}

}  // namespace

std::string sanitizer_headline(const std::string& out) {
  struct Key {
    const char* text;
    std::size_t hidden;  // leading characters of `text` not shown ("ERROR: ")
  };
  for (const Key key :
       {Key{"ERROR: AddressSanitizer: ", 7}, Key{"ERROR: LeakSanitizer: ", 7}, Key{"WARNING: ThreadSanitizer: ", 9},
        Key{"ERROR: MemorySanitizer: ", 7}, Key{"runtime error: ", 0}}) {
    const std::size_t at = out.find(key.text);
    if (at == std::string::npos) continue;
    std::size_t from = at + key.hidden;
    if (key.hidden == 0) {  // UBSan: the whole line, which starts with the source location
      const std::size_t line_start = out.rfind('\n', at);
      from = line_start == std::string::npos ? 0 : line_start + 1;
    }
    const std::size_t end = out.find('\n', from);
    std::string line = out.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (const std::size_t pc = line.find(" (pc "); pc != std::string::npos) line.resize(pc);
    if (line.size() > 200) line.resize(200);
    return line;
  }
  return {};
}

std::string Death::what() const {
  std::string s;
  switch (kind) {
    case Kind::signal:
      if (const char* t = signal_text(code)) s = t;
      else s = printf_string("signal %d (%s)", code, strsignal(code));
      break;
    case Kind::exit_call: s = code < 0 ? "a call of quick_exit()" : "a call of exit(" + std::to_string(code) + ")"; break;
    case Kind::exit_status:
      // A sanitizer ends the process with its own status after its report: the report says more.
      if (!sanitizer.empty()) return sanitizer + " (exit status " + std::to_string(code) + ")";
      s = "an exit with status " + std::to_string(code);
      break;
    case Kind::hang: s = printf_string("hang after %.0f ms", limit_ms / scale) + scale_note(scale); break;
  }
  if (!sanitizer.empty()) s += ", " + sanitizer;
  return s;
}

}  // namespace duet::detail
