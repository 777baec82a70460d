// The HTML timeline: self-contained, one bar per operation in its data, the stuck and pending
// operations marked, states carried, hostile strings escaped, size bounded with a note saying
// what was left out, and the same bytes for the same input. Histories and reports are built in
// code (tests/timeline/crafted_history.hpp); the page's script is exercised in a real browser
// by Timeline.OpensInHeadlessBrowser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <duet/history.hpp>

#include "support/history_families.hpp"
#include "timeline/crafted_history.hpp"

namespace {
using namespace duet::history;
using duet_timeline_test::crafted_register;
using duet_timeline_test::long_register;

// The page's data block, decoded just enough to check it, its rows read by the names the block
// declares ("f", "fl"), as the page's script reads them.
struct Data {
  std::string json;
  std::size_t n = 0;
  std::size_t ranks = 0;
  std::vector<std::string> fields;           // "f": the rows' field names, in order
  std::map<std::string, long long> flag_of;  // "fl": each flag's bit
  std::vector<std::string> o;                // numbers (or quoted numbers), a row per bar
  std::vector<std::string> strings;          // string table, unescaped
  std::size_t index(const std::string& name) const {
    const auto at = std::find(fields.begin(), fields.end(), name);
    EXPECT_NE(at, fields.end()) << "no field " << name;
    return static_cast<std::size_t>(at - fields.begin());
  }
  std::string field(std::size_t row, const std::string& name) const { return o.at(row * fields.size() + index(name)); }
  long long num(std::size_t row, const std::string& name) const { return std::stoll(field(row, name)); }
  bool has(std::size_t row, const std::string& flag) const {
    EXPECT_EQ(flag_of.count(flag), 1u) << "no flag " << flag;
    return flag_of.count(flag) != 0 && (num(row, "flags") & flag_of.at(flag)) != 0;
  }
  // The data row of operation `op`, or -1.
  long long row_of(std::size_t op) const {
    for (std::size_t r = 0; r < n; ++r)
      if (num(r, "op") == static_cast<long long>(op)) return static_cast<long long>(r);
    return -1;
  }
};

std::size_t after(const std::string& s, const std::string& key) {
  const std::size_t at = s.find(key);
  EXPECT_NE(at, std::string::npos) << key;
  return at == std::string::npos ? s.size() : at + key.size();
}

// A JSON string starting at s[i] (the quote); i ends past the closing quote. ASCII escapes
// only: the page writes \u00XX for the few characters it escapes that way.
std::string json_string(const std::string& s, std::size_t& i) {
  std::string out;
  ++i;
  while (i < s.size() && s[i] != '"') {
    if (s[i] == '\\') {
      const char e = s[++i];
      if (e == 'u') {
        out += static_cast<char>(std::stoi(s.substr(i + 1, 4), nullptr, 16));
        i += 4;
      } else {
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
    } else {
      out += s[i];
    }
    ++i;
  }
  ++i;
  return out;
}

Data decode(const std::string& page) {
  Data d;
  const std::size_t begin = after(page, "<script type=\"application/json\" id=\"duet-data\">");
  d.json = page.substr(begin, page.find("</script>", begin) - begin);
  d.n = std::stoul(d.json.substr(after(d.json, "\"n\":")));
  d.ranks = std::stoul(d.json.substr(after(d.json, "\"r\":")));
  std::size_t i = after(d.json, "\"o\":[");
  std::string cur;
  for (; i < d.json.size() && d.json[i] != ']'; ++i) {
    if (d.json[i] == ',') {
      d.o.push_back(cur);
      cur.clear();
    } else if (d.json[i] != '"') {
      cur += d.json[i];
    }
  }
  if (!cur.empty()) d.o.push_back(cur);
  for (i = after(d.json, "\"f\":["); i < d.json.size() && d.json[i] == '"';) {
    d.fields.push_back(json_string(d.json, i));
    if (d.json[i] == ',') ++i;
  }
  for (i = after(d.json, "\"fl\":{"); i < d.json.size() && d.json[i] == '"';) {
    const std::string name = json_string(d.json, i);
    std::size_t used = 0;
    d.flag_of[name] = std::stoll(d.json.substr(i + 1), &used);
    i += 1 + used;
    if (d.json[i] == ',') ++i;
  }
  i = after(d.json, "\"s\":[");
  while (i < d.json.size() && d.json[i] == '"') {
    d.strings.push_back(json_string(d.json, i));
    if (d.json[i] == ',') ++i;
  }
  return d;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t k = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++k;
  return k;
}

bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

Operation op(std::int64_t process, std::string f, std::uint64_t invoke, std::uint64_t response, Value input = {},
             Value output = {}, Outcome outcome = Outcome::ok) {
  Operation o;
  o.process = process;
  o.f = std::move(f);
  o.invoke = invoke;
  o.response = response;
  o.input = std::move(input);
  o.output = std::move(output);
  o.outcome = outcome;
  return o;
}

TEST(Timeline, IsSelfContained) {
  const auto c = crafted_register();
  const std::string page = render_timeline_html(c.history, c.report);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("</html>"), std::string::npos);
  for (const char* banned : {"http://", "https://", "src=\"http", "src=", "<link", "@import", "url("})
    EXPECT_EQ(page.find(banned), std::string::npos) << banned;
  // Exactly the data block and the script.
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(count(page, "</script>"), 2u);
  EXPECT_NE(page.find("<style>"), std::string::npos);
}

// The page's script reads the rows only by the names the data block declares, and every
// declared field and flag is read: the writer and the script cannot drift apart unseen.
TEST(Timeline, TheScriptReadsTheRowsByTheirDeclaredNames) {
  const auto c = crafted_register();
  const std::string page = render_timeline_html(c.history, c.report);
  const Data d = decode(page);
  const std::size_t at = page.rfind("<script>");
  ASSERT_NE(at, std::string::npos);
  const std::string script = page.substr(at);
  std::set<std::string> fields_read, flags_read;
  const std::regex field_use(R"(\bF\.([a-z_]+))"), flag_use(R"(\bFL\.([a-z_]+))");
  for (std::sregex_iterator m(script.begin(), script.end(), field_use), e; m != e; ++m) fields_read.insert((*m)[1]);
  for (std::sregex_iterator m(script.begin(), script.end(), flag_use), e; m != e; ++m) flags_read.insert((*m)[1]);
  const std::set<std::string> fields(d.fields.begin(), d.fields.end());
  std::set<std::string> flags;
  for (const auto& [name, bit] : d.flag_of) flags.insert(name);
  EXPECT_EQ(fields_read, fields);
  EXPECT_EQ(flags_read, flags);
  EXPECT_EQ(script.find("f(i, 4)"), std::string::npos) << "a row read by position";
}

TEST(Timeline, HeaderSummarizesTheCheck) {
  const auto c = crafted_register();
  const std::string page = render_timeline_html(c.history, c.report);
  EXPECT_NE(page.find("crafted-register.edn"), std::string::npos);
  EXPECT_NE(page.find("cas-register-0"), std::string::npos);
  EXPECT_NE(page.find("class=\"verdict v-not-linearizable\">not-linearizable<"), std::string::npos);
  EXPECT_NE(page.find("<dt>Operations</dt><dd>42</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Processes</dt><dd>6</dd>"), std::string::npos);
  EXPECT_NE(page.find("<dt>Partitions</dt><dd>1</dd>"), std::string::npos);
  // The explanation, HTML-escaped ("<=" in it).
  EXPECT_NE(page.find("a value no write &lt;= that point produced."), std::string::npos);
}

TEST(Timeline, OneBarPerOperation) {
  const auto c = crafted_register();
  const Data d = decode(render_timeline_html(c.history, c.report));
  ASSERT_EQ(d.n, c.history.ops.size());
  ASSERT_EQ(d.o.size(), d.n * d.fields.size());
  std::vector<int> seen(c.history.ops.size(), 0);
  for (std::size_t r = 0; r < d.n; ++r) {
    ++seen.at(static_cast<std::size_t>(d.num(r, "op")));
    EXPECT_LE(d.num(r, "start"), d.num(r, "end")) << "row " << r;
    EXPECT_LE(d.num(r, "end"), static_cast<long long>(d.ranks)) << "row " << r;
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  // Times are compressed to ranks: at most two distinct events per operation.
  EXPECT_LE(d.ranks, 2 * d.n);
}

TEST(Timeline, BarLabelsSayWhatHappened) {
  History h;
  h.source = "labels.log";
  h.ops.push_back(op(0, "cas", 1, 4, Value::vector({Value::integer(1), Value::integer(2)})));
  h.ops.push_back(op(1, "read", 2, 5, {}, Value::integer(3)));
  h.ops.push_back(op(2, "write", 3, 6, Value::integer(4), Value::integer(4)));
  Operation get = op(3, "get", 7, 8, {}, Value::string("x 0 0 y"));
  get.key = Value::string("k");
  h.ops.push_back(get);
  h.ops.push_back(op(0, "cas", 9, 10, Value::vector({Value::integer(5), Value::integer(6)}), {}, Outcome::fail));
  CheckReport r;
  r.verdict = Verdict::linearizable;
  const Data d = decode(render_timeline_html(h, r));
  auto label = [&](std::size_t opi) {
    return d.strings.at(static_cast<std::size_t>(d.num(static_cast<std::size_t>(d.row_of(opi)), "label")));
  };
  EXPECT_EQ(label(0), "cas [1 2] -> ok");
  EXPECT_EQ(label(1), "read -> 3");
  EXPECT_EQ(label(2), "write 4 -> ok");
  EXPECT_EQ(label(3), "get \"k\" -> \"x 0 0 y\"");
  EXPECT_EQ(label(4), "cas [5 6] -> fail");
  EXPECT_TRUE(d.has(static_cast<std::size_t>(d.row_of(4)), "fail"));
}

TEST(Timeline, StuckOperationIsMarked) {
  const auto c = crafted_register();
  ASSERT_TRUE(c.report.stuck.has_value());
  const std::string page = render_timeline_html(c.history, c.report);
  const Data d = decode(page);
  for (std::size_t r = 0; r < d.n; ++r)
    EXPECT_EQ(d.has(r, "stuck"), d.num(r, "op") == static_cast<long long>(*c.report.stuck)) << "row " << r;
  EXPECT_NE(page.find("Stuck operation</b> #" + std::to_string(*c.report.stuck)), std::string::npos);
  EXPECT_NE(page.find("State there: <code>" + c.report.stuck_state + "</code>"), std::string::npos);
  EXPECT_NE(d.json.find("\"ss\":\"" + c.report.stuck_state + "\""), std::string::npos);
  // Placed operations carry their position; the others (after the stuck one) none.
  std::vector<long long> position(c.history.ops.size(), 0);
  for (std::size_t k = 0; k < c.report.order.size(); ++k) position[c.report.order[k]] = static_cast<long long>(k) + 1;
  for (std::size_t r = 0; r < d.n; ++r) EXPECT_EQ(d.num(r, "position"), position[static_cast<std::size_t>(d.num(r, "op"))]);
}

TEST(Timeline, StatesArePresent) {
  auto c = crafted_register();
  for (std::size_t k = 0; k < c.report.states.size(); ++k) c.report.states[k] = "{:value " + std::to_string(k) + "}";
  const Data d = decode(render_timeline_html(c.history, c.report));
  for (std::size_t k = 0; k < c.report.order.size(); ++k) {
    const long long r = d.row_of(c.report.order[k]);
    ASSERT_GE(r, 0);
    const long long s = d.num(static_cast<std::size_t>(r), "state");
    ASSERT_GT(s, 0) << "no state for order position " << k;
    EXPECT_EQ(d.strings.at(static_cast<std::size_t>(s - 1)), c.report.states[k]);
  }
  // Without states: none, and the page still renders.
  c.report.states.clear();
  const Data e = decode(render_timeline_html(c.history, c.report));
  for (std::size_t r = 0; r < e.n; ++r) EXPECT_EQ(e.num(r, "state"), 0);
}

TEST(Timeline, PendingOperationsReachTheEnd) {
  const auto c = crafted_register();
  const Data d = decode(render_timeline_html(c.history, c.report));
  std::size_t pending = 0;
  for (std::size_t i = 0; i < c.history.ops.size(); ++i) {
    if (c.history.ops[i].outcome != Outcome::info) continue;
    ++pending;
    const auto r = static_cast<std::size_t>(d.row_of(i));
    EXPECT_TRUE(d.has(r, "info")) << "indeterminate flag";
    EXPECT_EQ(d.num(r, "end"), static_cast<long long>(d.ranks)) << "extends to the end";
    EXPECT_EQ(d.field(r, "response_time"), "-1") << "no response time";
    EXPECT_EQ(d.strings.at(static_cast<std::size_t>(d.num(r, "label"))), "write 9 -> ?");
  }
  EXPECT_EQ(pending, 1u);
}

TEST(Timeline, HostileStringsAreEscaped) {
  const std::string evil = "</script><script>alert(1)</script><img src=x onerror='alert(2)'>\"&amp;<!--";
  auto c = crafted_register();
  c.history.source = evil;
  c.history.ops[0].f = evil;
  c.history.ops[1].output = Value::string(evil);
  c.history.ops[2].key = Value::string(evil);
  c.report.explanation = evil;
  c.report.stuck_state = evil;
  c.report.states[0] = evil;
  c.report.model = evil;
  const std::string page = render_timeline_html(c.history, c.report);
  EXPECT_EQ(count(page, "<script"), 2u);
  EXPECT_EQ(count(page, "</script>"), 2u);
  EXPECT_EQ(page.find("alert(1)</"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  // In the markup; inside the data block it is an inert JSON string.
  const std::string markup = page.substr(0, page.find("id=\"duet-data\""));
  EXPECT_EQ(markup.find("onerror='"), std::string::npos);
  EXPECT_NE(page.find("&lt;&#47;script&gt;&lt;script&gt;alert(1)"), std::string::npos);  // shown as text
  // The data round-trips: the page shows exactly what the history holds.
  const Data d = decode(page);
  const auto row0 = static_cast<std::size_t>(d.row_of(0));
  EXPECT_EQ(d.strings.at(static_cast<std::size_t>(d.num(row0, "label"))).rfind(evil, 0), 0u);
  bool state_seen = false;
  for (const std::string& s : d.strings) state_seen |= s == evil;
  EXPECT_TRUE(state_seen);
  EXPECT_EQ(d.json.find('<'), std::string::npos);
  EXPECT_EQ(d.json.find('>'), std::string::npos);
}

TEST(Timeline, InvalidUtf8AndHugeValuesStayBounded) {
  auto c = crafted_register();
  c.history.ops[0].output = Value::string("bad \xC3\x28 bytes \xFF\xFE and \xE2\x82");
  c.history.ops[1].output = Value::string(std::string(1 << 20, 'x'));
  c.report.explanation = std::string(300000, 'e') + "\xF0\x9F\x98\x80";
  const std::string page = render_timeline_html(c.history, c.report);
  EXPECT_TRUE(valid_utf8(page));
  EXPECT_LT(page.size(), 200000u) << "one huge value must not blow up the page";
  const Data d = decode(page);
  EXPECT_EQ(d.n, c.history.ops.size());
}

TEST(Timeline, SameInputSameBytes) {
  const auto c = crafted_register();
  const auto copy = c;
  const std::string a = render_timeline_html(c.history, c.report);
  EXPECT_EQ(a, render_timeline_html(copy.history, copy.report));
  const auto big = long_register(100000);
  EXPECT_EQ(render_timeline_html(big.history, big.report, 1 << 20), render_timeline_html(big.history, big.report, 1 << 20));
}

TEST(Timeline, ThreeThousandOperationsRenderFullyUnderOneMegabyte) {
  const auto c = crafted_register(6, 500, 1000000);  // nanosecond-like times
  ASSERT_EQ(c.history.ops.size(), 3000u);
  const std::string page = render_timeline_html(c.history, c.report);
  std::printf("3000-op page: %zu bytes\n", page.size());
  EXPECT_LT(page.size(), 400u * 1024);
  EXPECT_EQ(page.find("not shown"), std::string::npos);
  EXPECT_EQ(decode(page).n, 3000u);
}

TEST(Timeline, HundredThousandOperationsAreWindowedWithANote) {
  const auto c = long_register(100000);
  for (std::size_t limit : {std::size_t{1} << 20, std::size_t{8} << 20, std::size_t{256} << 10}) {
    const std::string page = render_timeline_html(c.history, c.report, limit);
    std::printf("100000-op page, limit %zu: %zu bytes\n", limit, page.size());
    EXPECT_LE(page.size(), limit);
    const Data d = decode(page);
    EXPECT_GT(d.n, 1000u);
    if (d.n < 100000) {
      // No violation: the window starts at the beginning.
      EXPECT_EQ(d.num(0, "op"), 0);
      const std::string note = std::to_string(100000 - d.n) + " operations after not shown";
      EXPECT_NE(page.find(note), std::string::npos) << note;
      EXPECT_EQ(page.find("operations before not shown"), std::string::npos);
    }
  }
  // Unbounded enough: everything, no note.
  const std::string all = render_timeline_html(c.history, c.report, std::size_t{64} << 20);
  EXPECT_EQ(decode(all).n, 100000u);
  EXPECT_EQ(all.find("not shown"), std::string::npos);
}

TEST(Timeline, ViolationWindowIsAroundTheStuckOperation) {
  auto c = long_register(100000);
  const std::size_t stuck = 60000;
  c.report.verdict = Verdict::not_linearizable;
  c.report.order.resize(stuck);
  c.report.states.resize(stuck);
  c.report.stuck = stuck;
  c.report.stuck_state = "41";
  const std::size_t limit = std::size_t{1} << 20;
  const std::string page = render_timeline_html(c.history, c.report, limit);
  EXPECT_LE(page.size(), limit);
  const Data d = decode(page);
  ASSERT_GE(d.row_of(stuck), 0) << "the stuck operation is shown";
  const auto first = static_cast<std::size_t>(d.num(0, "op"));
  const auto last = static_cast<std::size_t>(d.num(d.n - 1, "op"));
  EXPECT_LT(first, stuck);
  EXPECT_GT(last, stuck);
  EXPECT_EQ(last - first + 1, d.n) << "a contiguous window here (no long operations)";
  EXPECT_NE(page.find(std::to_string(first) + " operations before not shown"), std::string::npos);
  EXPECT_NE(page.find(std::to_string(100000 - 1 - last) + " operations after not shown"), std::string::npos);
}

// A violation decided without a search: its witness outlined, the stuck box saying so.
TEST(Timeline, WitnessIsOutlined) {
  const duet_test::Family f{
      .object = duet_test::Object::cas_register, .clients = 20, .ops_per_client = 100, .bug = duet_test::Bug::stale_read};
  const History h = duet_test::generate(f);
  const CheckReport r = check_history(h);
  ASSERT_FALSE(r.witness.empty());
  ASSERT_FALSE(r.partial_linearization);
  const std::string page = render_timeline_html(h, r);
  const Data d = decode(page);
  std::size_t outlined = 0;
  for (std::size_t row = 0; row < d.n; ++row) {
    const auto op = static_cast<std::size_t>(d.num(row, "op"));
    const bool in = std::find(r.witness.begin(), r.witness.end(), op) != r.witness.end();
    EXPECT_EQ(d.has(row, "witness"), in) << "row " << row;
    outlined += in;
  }
  EXPECT_EQ(outlined, r.witness.size());
  EXPECT_NE(page.find("operations of the witness (outlined)"), std::string::npos);
  EXPECT_EQ(page.find("State there:"), std::string::npos) << "no state from a search that did not run";
  EXPECT_EQ(page.find("Longest partial order"), std::string::npos);
}

// A violation only the search found: the failing window outlined, its open operations flagged,
// the longest partial order still shown.
TEST(Timeline, FailingWindowIsOutlinedAndItsOpenOperationsFlagged) {
  // A read of the initial nil after a write returned: the window ends when the longest write
  // returns, and the write still running then (invoked during the read) is open. (A value
  // written twice: no decision applies, only the search.)
  const History h =
      duet::history::parse_history(";duet-history 1\n;model cas-register\n"
                                   "{:process 1, :invoke 3, :complete 20, :type :ok, :f :write, :input 2, :value nil}\n"
                                   "{:process 0, :invoke 4, :complete 6, :type :ok, :f :write, :input 3, :value nil}\n"
                                   "{:process 0, :invoke 8, :complete 10, :type :ok, :f :read, :value nil}\n"
                                   "{:process 3, :invoke 9, :complete 30, :type :ok, :f :write, :input 2, :value nil}\n",
                                   duet::history::Format::duet, "stale.duet");
  duet::history::CheckOptions options;
  options.want_states = true;
  const CheckReport r = check_history(h, options);
  ASSERT_TRUE(r.partial_linearization);
  ASSERT_FALSE(r.witness.empty());
  ASSERT_FALSE(r.witness_open.empty()) << r.explanation;
  const std::string page = render_timeline_html(h, r);
  const Data d = decode(page);
  for (std::size_t op : r.witness) {
    ASSERT_GE(d.row_of(op), 0) << op;
    const auto row = static_cast<std::size_t>(d.row_of(op));
    EXPECT_TRUE(d.has(row, "witness")) << op;
    const bool open = std::find(r.witness_open.begin(), r.witness_open.end(), op) != r.witness_open.end();
    EXPECT_EQ(d.has(row, "witness_open"), open) << op;
  }
  EXPECT_NE(page.find("\"fw\":1"), std::string::npos);
  EXPECT_NE(page.find("<dt>Failing window</dt><dd>" + std::to_string(r.witness.size()) + " operations</dd>"),
            std::string::npos);
  EXPECT_NE(page.find("Longest partial order"), std::string::npos);
  EXPECT_NE(page.find("State there:"), std::string::npos);
  EXPECT_EQ(page.find("Window starts in"), std::string::npos) << "not cut at the front";
}

// Cut at the front: the states the window starts in are named.
TEST(Timeline, FailingWindowCutAtTheFrontNamesItsStartStates) {
  const duet_test::Family f{
      .object = duet_test::Object::cas_register, .clients = 10, .ops_per_client = 200, .seed = 4, .values = 5};
  History h = duet_test::generate(f);
  for (std::size_t i = 1500; i < h.ops.size(); ++i)
    if (h.ops[i].f == "read" && h.ops[i].outcome == Outcome::ok) {
      h.ops[i].output = Value::integer(77);
      break;
    }
  const CheckReport r = check_history(h);
  ASSERT_FALSE(r.witness_start.empty()) << r.explanation;
  std::string states;
  for (const std::string& s : r.witness_start) states += (states.empty() ? "" : ", ") + s;
  const std::string page = render_timeline_html(h, r);
  EXPECT_NE(page.find("<dt>Window starts in</dt><dd>" + states + "</dd>"), std::string::npos) << states;
}

// Windowed, the witness is shown even where it lies far from the stuck operation.
TEST(Timeline, WindowKeepsTheWitness) {
  auto c = long_register(100000);
  c.report.verdict = Verdict::not_linearizable;
  c.report.order.clear();
  c.report.states.clear();
  c.report.stuck = 60000;
  c.report.witness = {5, 59990, 60000};
  c.report.partial_linearization = false;
  const std::size_t limit = std::size_t{1} << 20;
  const std::string page = render_timeline_html(c.history, c.report, limit);
  EXPECT_LE(page.size(), limit);
  const Data d = decode(page);
  for (std::size_t op : c.report.witness) {
    ASSERT_GE(d.row_of(op), 0) << op;
    EXPECT_TRUE(d.has(static_cast<std::size_t>(d.row_of(op)), "witness")) << op;
  }
  EXPECT_LT(d.n, 100000u) << "still a window";
}

TEST(Timeline, LongRunningOperationsBeforeTheWindowAreKept) {
  auto c = long_register(100000);
  // Process 9 invoked early and never returned: it is concurrent with everything.
  Operation hung = op(9, "write", 5, Operation::kPending, Value::integer(1), {}, Outcome::info);
  c.history.ops.insert(c.history.ops.begin(), hung);
  c.report.verdict = Verdict::not_linearizable;
  c.report.order.clear();
  c.report.states.clear();
  for (std::size_t i = 1; i < 70000; ++i) c.report.order.push_back(i);
  c.report.stuck = 70000;
  const std::string page = render_timeline_html(c.history, c.report, 512 << 10);
  EXPECT_LE(page.size(), 512u << 10);
  const Data d = decode(page);
  EXPECT_GE(d.row_of(0), 0) << "the pending operation is concurrent with the window";
  EXPECT_GE(d.row_of(70000), 0);
}

TEST(Timeline, NeverExceedsTheLimit) {
  const auto c = crafted_register(6, 500);
  for (std::size_t limit : {0, 100, 400, 1000, 5000, 20000, 30000, 40000, 60000, 100000, 150000}) {
    const std::string page = render_timeline_html(c.history, c.report, limit);
    EXPECT_LE(page.size(), limit) << limit;
    if (limit >= 400) {
      EXPECT_FALSE(page.empty()) << limit;
    }
  }
}

TEST(Timeline, EmptyHistoryAndMalformedReports) {
  History empty;
  CheckReport r;
  const Data d = decode(render_timeline_html(empty, r));
  EXPECT_EQ(d.n, 0u);
  auto c = crafted_register();
  c.report.order.push_back(100000);             // out of range
  c.report.order.push_back(c.report.order[0]);  // twice
  c.report.stuck = 999999;
  const Data e = decode(render_timeline_html(c.history, c.report));
  EXPECT_EQ(e.n, c.history.ops.size());
  for (std::size_t r2 = 0; r2 < e.n; ++r2) EXPECT_FALSE(e.has(r2, "stuck"));
}

TEST(Timeline, OverlappingOperationsOfOneProcessGetTheirOwnRows) {
  History h;
  h.ops.push_back(op(7, "write", 1, Operation::kPending, Value::integer(1), {}, Outcome::info));
  h.ops.push_back(op(7, "read", 2, 3, {}, Value::integer(1)));
  h.ops.push_back(op(8, "read", 4, 5, {}, Value::integer(1)));
  CheckReport r;
  const Data d = decode(render_timeline_html(h, r));
  EXPECT_NE(d.json.find("\"p\":[7,0,2,8,2,1]"), std::string::npos) << d.json;
  EXPECT_NE(d.num(0, "lane"), d.num(1, "lane"));
}
}  // namespace

namespace {
using namespace duet::history;

// A partitioned violation: the operations of the other partitions are dimmed and say so.
TEST(Timeline, OtherPartitionsAreDimmed) {
  History h;
  h.source = "two keys";
  for (int i = 0; i < 6; ++i) {
    Operation o;
    o.process = i;
    o.f = i % 2 == 0 ? "put" : "get";
    o.key = Value::string(i < 3 ? "a" : "b");
    o.invoke = static_cast<std::uint64_t>(10 * i);
    o.response = static_cast<std::uint64_t>(10 * i + 5);
    h.ops.push_back(o);
  }
  CheckReport r;
  r.verdict = Verdict::not_linearizable;
  r.model = "kv";
  r.partitions = 2;
  r.partition_ops = {3, 4, 5};
  r.order = {3, 4};
  r.stuck = 5;
  const std::string page = render_timeline_html(h, r);
  const Data d = decode(page);
  for (std::size_t row = 0; row < d.n; ++row)
    EXPECT_EQ(d.has(row, "other_partition"), d.num(row, "op") < 3) << "row " << row;
  EXPECT_NE(page.find("other partitions</span>"), std::string::npos);
  r.partition_ops.clear();
  const std::string whole = render_timeline_html(h, r);
  const Data w = decode(whole);
  for (std::size_t row = 0; row < w.n; ++row) EXPECT_FALSE(w.has(row, "other_partition")) << "row " << row;
  EXPECT_EQ(whole.find("other partitions</span>"), std::string::npos);
}

}  // namespace
