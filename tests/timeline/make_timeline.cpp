// Writes timeline pages for the browser test: `make_timeline OUT.html [HOSTILE.html]`. OUT is
// the crafted non-linearizable register history (6 processes, one stuck read, states filled);
// HOSTILE has markup and script in every string that reaches the page. Prints `bars=N`, the
// number of bars the page's script must draw.
// `make_timeline --rows OUT.html ROWS.json` writes OUT and, in ROWS, what each operation's row
// must say, from the history and the report themselves (not from the page's writer): the test
// of the page's row reader without a browser compares them (rows_test.js).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "crafted_history.hpp"

namespace {
bool write_file(const char* path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}
}  // namespace

namespace {

// Operation i's row as the page must carry it: index, lines, times (as text), place in the order
// + 1, and the flags it must have (the others it must not, but for the witness's, unknown here).
std::string expected_row(const duet_timeline_test::Crafted& c, std::size_t i) {
  const duet::history::Operation& op = c.history.ops[i];
  const auto& order = c.report.order;
  const auto at = std::find(order.begin(), order.end(), i);
  const bool pending = op.response == duet::history::Operation::kPending;
  std::string flags;
  auto flag = [&](bool on, const char* name) {
    if (!on) return;
    flags += flags.empty() ? "\"" : ",\"";
    flags += name;
    flags += '"';
  };
  flag(op.outcome == duet::history::Outcome::fail, "fail");
  flag(op.outcome == duet::history::Outcome::info || pending, "info");
  flag(op.result_unknown, "unknown_result");
  flag(c.report.stuck == i, "stuck");
  return "{\"op\":" + std::to_string(i) + ",\"invoke_line\":" + std::to_string(op.invoke_line) +
         ",\"response_line\":" + std::to_string(op.response_line) + ",\"invoke_time\":\"" + std::to_string(op.invoke) +
         "\",\"response_time\":\"" + (pending ? std::string("-1") : std::to_string(op.response)) +
         "\",\"position\":" + std::to_string(at == order.end() ? 0 : at - order.begin() + 1) + ",\"flags\":[" + flags + "]}";
}

int write_rows(const char* page, const char* rows) {
  const auto c = duet_timeline_test::crafted_register();
  std::string expected = "[";
  for (std::size_t i = 0; i < c.history.ops.size(); ++i) expected += (i > 0 ? ",\n" : "") + expected_row(c, i);
  expected += "]\n";
  if (!write_file(page, duet::history::render_timeline_html(c.history, c.report)) || !write_file(rows, expected)) {
    std::cerr << "cannot write " << page << " or " << rows << "\n";
    return 1;
  }
  std::printf("bars=%zu\n", c.history.ops.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--rows") return write_rows(argv[2], argv[3]);
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
