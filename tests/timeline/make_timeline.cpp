// Writes timeline pages for the browser test: `make_timeline OUT.html [HOSTILE.html]`. OUT is
// the crafted non-linearizable register history (6 processes, one stuck read, states filled);
// HOSTILE has markup and script in every string that reaches the page. Prints `bars=N`, the
// number of bars the page's script must draw.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "crafted_history.hpp"

namespace {
bool write_file(const char* path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::cerr << "usage: make_timeline OUT.html [HOSTILE.html]\n";
    return 2;
  }
  const auto c = duet_timeline_test::crafted_register();
  if (!write_file(argv[1], duet::history::render_timeline_html(c.history, c.report))) {
    std::cerr << "cannot write " << argv[1] << "\n";
    return 1;
  }
  if (argc == 3) {
    auto h = c;
    const std::string evil =
        "</script><script>document.body.id='pwned'</script><img id=pwned src=x onerror=\"document.title='pwned'\">";
    h.history.source = evil;
    h.history.ops[0].f = evil;
    h.history.ops[1].output = duet::history::Value::string(evil);
    h.report.explanation = evil;
    h.report.stuck_state = evil;
    h.report.states[0] = evil;
    h.report.model = evil;
    if (!write_file(argv[2], duet::history::render_timeline_html(h.history, h.report))) {
      std::cerr << "cannot write " << argv[2] << "\n";
      return 1;
    }
  }
  std::printf("bars=%zu\n", c.history.ops.size());
  return 0;
}
